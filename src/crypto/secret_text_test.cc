#include "crypto/secret_text.h"

#include <gtest/gtest.h>

#include <set>

namespace redrive::crypto {
namespace {

TEST(SecretTextTest, Base64UrlRoundTripsAndIsUnpadded) {
  // RFC 4648 §10's vectors, in the URL alphabet without padding.
  EXPECT_EQ(Base64UrlEncode(""), "");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  for (std::string s : {"", "f", "fo", "foo", "foob", "\xfb\xff\x00\x01"}) {
    EXPECT_EQ(Base64UrlDecode(Base64UrlEncode(s)), s);
  }
}

TEST(SecretTextTest, DecodeRefusesOtherAlphabetsLengthsAndSpellings) {
  EXPECT_EQ(Base64UrlDecode("Zm9v+A"), std::nullopt);  // standard alphabet
  EXPECT_EQ(Base64UrlDecode("Zm9v="), std::nullopt);   // padding
  EXPECT_EQ(Base64UrlDecode("Zm9vY"), std::nullopt);   // 4n+1 characters
  EXPECT_EQ(Base64UrlDecode("Zh"), std::nullopt);      // "f" spelt with a stray bit
  EXPECT_TRUE(IsBase64UrlText("abc-_09"));
  EXPECT_FALSE(IsBase64UrlText("ab.c"));
}

TEST(SecretTextTest, RandomSecretsHaveTheirLengthAndDiffer) {
  EXPECT_EQ(RandomBase64Url(32).size(), 43u);
  EXPECT_EQ(RandomHex(32).size(), 64u);
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) seen.insert(RandomBase64Url(16));
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_THROW(RandomHex(65), std::invalid_argument);
}

TEST(SecretTextTest, HmacSha256MatchesRfc4231) {
  // RFC 4231 test case 2.
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(HmacSha256("Jefe", "what do ya want for nothing?").size(), 32u);
  EXPECT_EQ(HmacSha256Hex("", "").size(), 64u);  // an empty key is legal
  // RFC 4231 test case 1: 20 bytes of 0x0b, "Hi There".
  EXPECT_EQ(HmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(SecretTextTest, Sha256HexMatchesFips180) {
  // FIPS 180-2's one-block and empty-message vectors.
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

}  // namespace
}  // namespace redrive::crypto
