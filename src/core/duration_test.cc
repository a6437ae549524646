#include "core/duration.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

using std::chrono::milliseconds;

TEST(ParseDurationTest, AcceptsEveryUnit) {
  EXPECT_EQ(ParseDuration("500ms"), milliseconds(500));
  EXPECT_EQ(ParseDuration("30s"), milliseconds(30'000));
  EXPECT_EQ(ParseDuration("30"), milliseconds(30'000));
  EXPECT_EQ(ParseDuration("5m"), milliseconds(300'000));
  EXPECT_EQ(ParseDuration("1h"), milliseconds(3'600'000));
  EXPECT_EQ(ParseDuration("2d"), milliseconds(172'800'000));
  EXPECT_EQ(ParseDuration("0s"), milliseconds(0));
}

TEST(ParseDurationTest, RefusesTheRest) {
  for (const char* bad : {"", "s", "-1s", "1.5s", "5x", "1h30m", "99999999999999999999d", " 5s",
                          "5s ", "+5s", "5 s", "5S"}) {
    EXPECT_FALSE(ParseDuration(bad)) << bad;
  }
}

TEST(ParseDurationTest, RefusesOverflowOfTheLargestUnit) {
  // 106751991167 days is the last whole day in a signed 64-bit ms count.
  EXPECT_TRUE(ParseDuration("106751991167d"));
  EXPECT_FALSE(ParseDuration("106751991168d"));
}

}  // namespace
}  // namespace redrive
