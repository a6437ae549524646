#include "core/time_format.h"

#include <gtest/gtest.h>

#include <string>

#include "core/duration.h"

namespace redrive {
namespace {

using namespace std::chrono_literals;

// 2026-11-29T12:00:00Z in microseconds since the epoch.
constexpr int64_t kNoonUs = 1'795'953'600'000'000;
const Instant kNoon = InstantFromMicros(kNoonUs);

TEST(FormatTimeTest, MillisecondsWithZ) {
  EXPECT_EQ(FormatTime(kNoon), "2026-11-29T12:00:00.000Z");
  EXPECT_EQ(FormatTime(kNoon + 123ms), "2026-11-29T12:00:00.123Z");
  EXPECT_EQ(FormatTime(InstantFromMicros(0)), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTime(kNoon + 11h + 59min + 59s + 999ms), "2026-11-29T23:59:59.999Z");
  EXPECT_EQ(FormatTime(kNoon + 12h), "2026-11-30T00:00:00.000Z");
  EXPECT_EQ(FormatTime(InstantFromMicros(1'709'208'000'000'000)), "2024-02-29T12:00:00.000Z");
}

TEST(FormatTimeTest, TruncatesSubMillisecondsTowardThePast) {
  EXPECT_EQ(FormatTime(kNoon + 123999us), "2026-11-29T12:00:00.123Z");
  EXPECT_EQ(FormatTime(kNoon + 999999us), "2026-11-29T12:00:00.999Z");
  EXPECT_EQ(FormatTime(InstantFromMicros(-1)), "1969-12-31T23:59:59.999Z");
}

TEST(ParseTimeTest, UtcWithAndWithoutFraction) {
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00Z"), kNoon);
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00.123Z"), kNoon + 123ms);
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00.5Z"), kNoon + 500ms);
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00.000001Z"), kNoon + 1us);
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00.123456Z"), kNoon + 123456us);
  // Beyond microseconds the digits are dropped (not rounded).
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00.1234569Z"), kNoon + 123456us);
  EXPECT_EQ(ParseTime("2026-11-29t12:00:00z"), kNoon);
  EXPECT_EQ(ParseTime("1970-01-01T00:00:00Z"), InstantFromMicros(0));
}

TEST(ParseTimeTest, OffsetsAreConvertedToUtc) {
  EXPECT_EQ(ParseTime("2026-11-29T14:00:00+02:00"), kNoon);
  EXPECT_EQ(ParseTime("2026-11-29T06:30:00-05:30"), kNoon);
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00+00:00"), kNoon);
  EXPECT_EQ(ParseTime("2026-11-29T12:00:00-00:00"), kNoon);
  EXPECT_EQ(ParseTime("2026-11-30T01:45:00.250+13:45"), kNoon + 250ms);
  EXPECT_EQ(ParseTime("2026-11-28T23:00:00-13:00"), kNoon);  // across a day
}

TEST(ParseTimeTest, LeapDays) {
  EXPECT_TRUE(ParseTime("2028-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseTime("2026-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseTime("2100-02-29T00:00:00Z").has_value());
}

TEST(ParseTimeTest, RejectsGarbage) {
  for (const char* bad : {
           "",
           "now",
           "2026-11-29",
           "2026-11-29T12:00:00",   // no zone
           "2026-11-29T12:00Z",     // no seconds
           "2026-11-29 12:00:00Z",  // space separator
           "2026/11/29T12:00:00Z",
           "26-11-29T12:00:00Z",
           "2026-1-29T12:00:00Z",
           "2026-13-01T00:00:00Z",
           "2026-00-01T00:00:00Z",
           "2026-11-00T00:00:00Z",
           "2026-11-31T00:00:00Z",
           "2026-11-29T24:00:00Z",
           "2026-11-29T12:60:00Z",
           "2026-11-29T12:00:61Z",
           "2026-11-29T12:00:00.Z",  // empty fraction
           "2026-11-29T12:00:00,5Z",
           "2026-11-29T12:00:00ZZ",
           "2026-11-29T12:00:00Z ",
           " 2026-11-29T12:00:00Z",
           "2026-11-29T12:00:00+0200",
           "2026-11-29T12:00:00+02",
           "2026-11-29T12:00:00+2:00",
           "2026-11-29T12:00:00+24:00",
           "2026-11-29T12:00:00+02:60",
           "2026-11-29T12:00:00+02:00Z",
           "2026-11-29T12:00:00UTC",
           "abcd-11-29T12:00:00Z",
           "2026-11-29T1a:00:00Z",
           "1795953600",
       }) {
    EXPECT_FALSE(ParseTime(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(TimeRoundTripTest, FormatThenParseKeepsMilliseconds) {
  for (int64_t us : {int64_t{0}, kNoonUs, kNoonUs + 1, kNoonUs + 999'999, kNoonUs + 86'399'999'999,
                     int64_t{4'102'444'800'000'000} /* 2100-01-01 */}) {
    const Instant t = InstantFromMicros(us);
    const auto back = ParseTime(FormatTime(t));
    ASSERT_TRUE(back.has_value()) << FormatTime(t);
    EXPECT_EQ(*back, std::chrono::floor<std::chrono::milliseconds>(t));
  }
}

TEST(TimeRoundTripTest, ParseThenFormatIsIdentityForCanonicalText) {
  for (const char* s : {"2026-11-29T12:00:00.123Z", "1999-12-31T23:59:59.999Z",
                        "2000-01-01T00:00:00.000Z", "2028-02-29T07:08:09.010Z"}) {
    const auto t = ParseTime(s);
    ASSERT_TRUE(t.has_value()) << s;
    EXPECT_EQ(FormatTime(*t), s);
  }
  EXPECT_EQ(FormatTime(*ParseTime("2026-11-29T14:00:00.5+02:00")), "2026-11-29T12:00:00.500Z");
}

TEST(MaxInstantTest, IsTheLastFormattableMicrosecond) {
  EXPECT_EQ(FormatTime(kMaxInstant), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(ParseTime("9999-12-31T23:59:59.999999Z"), kMaxInstant);
  EXPECT_EQ(ParseTime(FormatTime(kMaxInstant)), kMaxInstant - Micros(999));
}

// Found by fuzz_time_parsing: a leap second or an offset past either end of
// the four-digit years parsed to a time FormatTime writes with five digits
// or a minus sign, which no client (nor ParseTime) reads back.
TEST(ParseTimeTest, RefusesTimesOutsideTheFormattableRange) {
  for (const char* past_the_end :
       {"9999-12-31T23:59:60Z", "9999-12-31T23:59:60.999Z", "9999-12-31T23:59:59.999-00:01",
        "9999-12-31T12:00:00-23:59", "0000-01-01T00:00:00+00:01", "0000-01-01T00:00:00.5+23:59"}) {
    EXPECT_FALSE(ParseTime(past_the_end).has_value()) << past_the_end;
  }
  EXPECT_EQ(ParseTime("0000-01-01T00:00:00Z"), kMinInstant);
  EXPECT_EQ(FormatTime(kMinInstant), "0000-01-01T00:00:00.000Z");
  EXPECT_EQ(ParseTime("9999-12-31T23:59:59.999999+00:00"), kMaxInstant);
  EXPECT_EQ(ParseTime("1998-12-31T23:59:60Z"), ParseTime("1999-01-01T00:00:00Z"));
}

TEST(AddClampedTest, AddsExactlyAndSaturatesAtMaxInstant) {
  const Instant t = InstantFromMicros(1'800'000'000'000'000);
  EXPECT_EQ(AddClamped(t, Micros(0)), t);
  EXPECT_EQ(AddClamped(t, Micros(1'500'000)), InstantFromMicros(1'800'000'001'500'000));
  EXPECT_EQ(AddClamped(kMaxInstant - Micros(10), Micros(10)), kMaxInstant);
  EXPECT_EQ(AddClamped(kMaxInstant - Micros(10), Micros(11)), kMaxInstant);
  EXPECT_EQ(AddClamped(t, Micros::max()), kMaxInstant);  // no int64 overflow
  EXPECT_EQ(AddClamped(kMaxInstant, Micros(1)), kMaxInstant);
}

TEST(FormatDurationTest, CompactHumanDurations) {
  EXPECT_EQ(FormatDuration(0us), "0ms");
  EXPECT_EQ(FormatDuration(999us), "0ms");
  EXPECT_EQ(FormatDuration(450ms), "450ms");
  EXPECT_EQ(FormatDuration(999ms), "999ms");
  EXPECT_EQ(FormatDuration(1s), "1s");
  EXPECT_EQ(FormatDuration(1500ms), "1s500ms");
  EXPECT_EQ(FormatDuration(9s), "9s");
  EXPECT_EQ(FormatDuration(12s), "12s");
  EXPECT_EQ(FormatDuration(12500ms), "12s");  // milliseconds only below 10 s
  EXPECT_EQ(FormatDuration(59s), "59s");
  EXPECT_EQ(FormatDuration(60s), "1m");  // zero parts dropped
  EXPECT_EQ(FormatDuration(3min + 12s), "3m12s");
  EXPECT_EQ(FormatDuration(2h), "2h");
  EXPECT_EQ(FormatDuration(1h + 30min), "1h30m");
  EXPECT_EQ(FormatDuration(1h + 30s), "1h");  // two units from the first non-zero
  EXPECT_EQ(FormatDuration(2h + 59min + 59s), "2h59m");
  EXPECT_EQ(FormatDuration(24h), "1d");
  EXPECT_EQ(FormatDuration(7 * 24h), "7d");
  EXPECT_EQ(FormatDuration(25h + 30min), "1d1h");
}

TEST(FormatDurationTest, NegativeDurationsKeepTheSign) {
  EXPECT_EQ(FormatDuration(-450ms), "-450ms");
  EXPECT_EQ(FormatDuration(-(3min + 12s)), "-3m12s");
  EXPECT_EQ(FormatDuration(-1500ms), "-1s500ms");
}

// What the CLI shows, it accepts: every form FormatDuration writes parses
// back to the same duration (when nothing was truncated).
TEST(FormatDurationTest, RoundTripsThroughParseDuration) {
  for (Micros d : {Micros(250ms), Micros(1500ms), Micros(9s), Micros(90s), Micros(1h + 30min),
                   Micros(7 * 24h), Micros(24h + 4h), Micros(3min + 12s)}) {
    auto parsed = ParseDuration(FormatDuration(d));
    ASSERT_TRUE(parsed) << FormatDuration(d);
    EXPECT_EQ(Micros(*parsed), d) << FormatDuration(d);
  }
}

// Found by fuzz_time_parsing: negating Micros::min() overflowed (UB).
TEST(FormatDurationTest, TheExtremesOfMicros) {
  EXPECT_EQ(FormatDuration(Micros::min()), "-106751991d4h");
  EXPECT_EQ(FormatDuration(Micros::max()), "106751991d4h");
  EXPECT_EQ(FormatDuration(Micros::min() + Micros(1)), "-106751991d4h");
}

}  // namespace
}  // namespace redrive
