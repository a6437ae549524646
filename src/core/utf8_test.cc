#include "core/utf8.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(Utf8PrefixTest, KeepsShortAndCutsLongAtCharacterBoundary) {
  EXPECT_EQ(Utf8Prefix("short", 2048), "short");
  std::string long_ascii(3000, 'x');
  EXPECT_EQ(Utf8Prefix(long_ascii, 2048).size(), 2048u);
  std::string utf8 = std::string(2047, 'x') + "\xc3\xa9";  // é straddles the limit
  EXPECT_EQ(Utf8Prefix(utf8, 2048).size(), 2047u);
  EXPECT_EQ(Utf8Prefix("\xe2\x82\xac", 2), "");  // € (3 bytes) does not fit in 2
  EXPECT_EQ(Utf8Prefix("abc", 0), "");
}

TEST(Utf8SuffixTest, KeepsShortAndCutsLongAtCharacterBoundary) {
  EXPECT_EQ(Utf8Suffix("short", 10), "short");
  EXPECT_EQ(Utf8Suffix("abcdef", 3), "def");
  EXPECT_EQ(Utf8Suffix("x\xc3\xa9y", 2), "y");  // é would be split: dropped whole
  EXPECT_EQ(Utf8Suffix("x\xc3\xa9y", 3), "\xc3\xa9y");
  EXPECT_EQ(Utf8Suffix("abc", 0), "");
}

TEST(ValidUtf8Test, KeepsValidTextAndReplacesEachInvalidSequence) {
  const std::string r = "\xEF\xBF\xBD";  // U+FFFD
  EXPECT_EQ(ValidUtf8(""), "");
  EXPECT_EQ(ValidUtf8("plain \"json\""), "plain \"json\"");
  EXPECT_EQ(ValidUtf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"),
            "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(ValidUtf8("a\xFF"
                      "b"),
            "a" + r + "b");
  EXPECT_EQ(ValidUtf8("a\xC3"), "a" + r);                        // truncated at the end
  EXPECT_EQ(ValidUtf8("\xC3(x"), r + "(x");                      // bad continuation
  EXPECT_EQ(ValidUtf8("\xC0\xAF"), r + r);                       // overlong '/'
  EXPECT_EQ(ValidUtf8("\xE0\x80\xAF"), r + r + r);               // overlong, 3 bytes
  EXPECT_EQ(ValidUtf8("\xED\xA0\x80"), r + r + r);               // a surrogate (U+D800)
  EXPECT_EQ(ValidUtf8("\xF4\x90\x80\x80"), r + r + r + r);       // past U+10FFFF
  EXPECT_EQ(ValidUtf8("\x80"), r);                               // lone continuation
  EXPECT_EQ(ValidUtf8("\xF4\x8F\xBF\xBF"), "\xF4\x8F\xBF\xBF");  // U+10FFFF itself
}

}  // namespace
}  // namespace redrive
