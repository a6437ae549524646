#include "outbound_http/hmac.h"

#include <gtest/gtest.h>

namespace redrive::outbound_http {
namespace {

// RFC 4231, test case 2: key "Jefe".
TEST(HmacSha256Test, Rfc4231TestCase2) {
  EXPECT_EQ(HmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

// RFC 4231, test case 1: 20 bytes of 0x0b, "Hi There".
TEST(HmacSha256Test, Rfc4231TestCase1) {
  EXPECT_EQ(HmacSha256Hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(SignatureHeaderTest, SignsTimestampDotBody) {
  EXPECT_EQ(SignatureHeader("Jefe", 1700000000, "{}"),
            "sha256=" + HmacSha256Hex("Jefe", "1700000000.{}"));
}

}  // namespace
}  // namespace redrive::outbound_http
