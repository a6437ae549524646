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

TEST(ParseDurationTest, AcceptsCompoundFormsLargestUnitFirst) {
  EXPECT_EQ(ParseDuration("1h30m"), milliseconds(5'400'000));
  EXPECT_EQ(ParseDuration("1m30s"), milliseconds(90'000));
  EXPECT_EQ(ParseDuration("1s500ms"), milliseconds(1500));
  EXPECT_EQ(ParseDuration("7d12h"), milliseconds(7 * 86'400'000LL + 12 * 3'600'000LL));
  EXPECT_EQ(ParseDuration("1d0h5m"), milliseconds(86'400'000 + 300'000));
}

TEST(ParseDurationTest, RefusesTheRest) {
  for (const char* bad :
       {"", "s", "-1s", "1.5s", "5x", "99999999999999999999d", " 5s", "5s ", "+5s", "5 s", "5S",
        "30m1h", "1m1m", "1h30", "1h-5m", "1h+5m", "1msm", "ms", "1h 30m"}) {
    EXPECT_FALSE(ParseDuration(bad)) << bad;
  }
}

TEST(ParseDurationTest, RefusesOverflowOfTheLargestUnit) {
  // 106751991167 days is the last whole day in a signed 64-bit ms count.
  EXPECT_TRUE(ParseDuration("106751991167d"));
  EXPECT_FALSE(ParseDuration("106751991168d"));
  EXPECT_FALSE(ParseDuration("106751991167d1d"));   // out of order anyway
  EXPECT_FALSE(ParseDuration("106751991167d23h"));  // the sum overflows
}

}  // namespace
}  // namespace redrive
