#include "cli/durations.h"

#include <gtest/gtest.h>

namespace redrive::cli {
namespace {

using std::chrono::milliseconds;

// The grammar itself is tested in core/duration_test.cc.
TEST(CheckDurationTest, ExplainsWhatADurationLooksLike) {
  EXPECT_EQ(CheckDuration("5m"), "");
  EXPECT_EQ(CheckDuration("5x"), "'5x' is not a duration (examples: 500ms, 90s, 5m, 1h30m, 7d)");
}

TEST(ParseRateTest, PerSecondMinuteHour) {
  EXPECT_DOUBLE_EQ(*ParseRate("50/s"), 50.0);
  EXPECT_DOUBLE_EQ(*ParseRate("600/m"), 10.0);
  EXPECT_DOUBLE_EQ(*ParseRate("0.5/s"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseRate("7"), 7.0);
  for (const char* bad : {"", "/s", "0/s", "-1/s", "5/d", "fast"})
    EXPECT_FALSE(ParseRate(bad)) << bad;
}

TEST(FormatRelativeTest, PastAndFuture) {
  Instant now = InstantFromMicros(1'800'000'000'000'000);
  EXPECT_EQ(FormatRelative(now - std::chrono::seconds(192), now), "3m12s ago");
  EXPECT_EQ(FormatRelative(now + std::chrono::seconds(5), now), "in 5s");
  EXPECT_EQ(FormatRelative(now + std::chrono::milliseconds(300), now), "just now");
}

TEST(CeilSecondsTest, RoundsUp) {
  EXPECT_EQ(CeilSeconds(milliseconds(500)), 1);
  EXPECT_EQ(CeilSeconds(milliseconds(2000)), 2);
  EXPECT_EQ(CeilSeconds(milliseconds(0)), 0);
}

}  // namespace
}  // namespace redrive::cli
