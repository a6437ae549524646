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

}  // namespace
}  // namespace redrive
