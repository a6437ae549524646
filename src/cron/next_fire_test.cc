#include "cron/next_fire.h"

#include <gtest/gtest.h>

#include "core/time_format.h"

namespace redrive::cron {
namespace {

Instant At(std::string_view rfc3339) {
  std::optional<Instant> t = ParseTime(rfc3339);
  EXPECT_TRUE(t.has_value()) << rfc3339;
  return t.value_or(Instant{});
}

// The next fire time after `after`, formatted in UTC ("none" when there is none).
std::string Next(std::string_view expression, std::string_view zone, std::string_view after) {
  Result<CronExpression> e = ParseCron(expression);
  EXPECT_TRUE(e.ok()) << expression << ": " << e.status().message();
  Result<const date::time_zone*> z = FindTimeZone(zone);
  EXPECT_TRUE(z.ok()) << zone;
  if (!e.ok() || !z.ok()) return "invalid";
  std::optional<Instant> next = NextFire(*e, *z, At(after));
  return next ? FormatTime(*next) : "none";
}

// The next `count` fire times after `after`, in UTC.
std::vector<std::string> Fires(std::string_view expression, std::string_view zone,
                               std::string_view after, std::size_t count) {
  std::vector<std::string> out;
  Result<CronExpression> e = ParseCron(expression);
  Result<const date::time_zone*> z = FindTimeZone(zone);
  if (!e.ok() || !z.ok()) return {"invalid"};
  for (Instant t : NextFires(*e, *z, At(after), count)) out.push_back(FormatTime(t));
  return out;
}

TEST(NextFireTest, FiveAndSixFields) {
  EXPECT_EQ(Next("*/15 * * * *", "UTC", "2026-05-01T10:07:00Z"), "2026-05-01T10:15:00.000Z");
  EXPECT_EQ(Next("*/15 * * * * *", "UTC", "2026-05-01T10:00:07Z"), "2026-05-01T10:00:15.000Z");
  EXPECT_EQ(Next("0 0 12 * * *", "UTC", "2026-05-01T12:00:00Z"), "2026-05-02T12:00:00.000Z");
}

TEST(NextFireTest, IsStrictlyAfterEvenWithinTheSameSecond) {
  EXPECT_EQ(Next("* * * * * *", "UTC", "2026-05-01T10:00:00Z"), "2026-05-01T10:00:01.000Z");
  EXPECT_EQ(Next("* * * * * *", "UTC", "2026-05-01T10:00:00.500Z"), "2026-05-01T10:00:01.000Z");
}

TEST(NextFireTest, RangesListsAndSteps) {
  EXPECT_EQ(Fires("10-40/15 * * * *", "UTC", "2026-05-01T10:00:00Z", 4),
            (std::vector<std::string>{"2026-05-01T10:10:00.000Z", "2026-05-01T10:25:00.000Z",
                                      "2026-05-01T10:40:00.000Z", "2026-05-01T11:10:00.000Z"}));
  EXPECT_EQ(Fires("5/20 * * * *", "UTC", "2026-05-01T10:00:00Z", 3),
            (std::vector<std::string>{"2026-05-01T10:05:00.000Z", "2026-05-01T10:25:00.000Z",
                                      "2026-05-01T10:45:00.000Z"}));
  EXPECT_EQ(Fires("0 8,12,18 * * *", "UTC", "2026-05-01T09:00:00Z", 3),
            (std::vector<std::string>{"2026-05-01T12:00:00.000Z", "2026-05-01T18:00:00.000Z",
                                      "2026-05-02T08:00:00.000Z"}));
}

TEST(NextFireTest, NamesInAnyCase) {
  // 2027-01-01 is a Friday.
  EXPECT_EQ(Next("0 9 * JAN-mar mon-FRI", "UTC", "2026-03-31T10:00:00Z"),
            "2027-01-01T09:00:00.000Z");
  EXPECT_EQ(Next("0 9 * * sun", "UTC", "2026-01-01T00:00:00Z"), "2026-01-04T09:00:00.000Z");
  EXPECT_EQ(Next("0 9 * * 7", "UTC", "2026-01-01T00:00:00Z"), "2026-01-04T09:00:00.000Z");
}

TEST(NextFireTest, DayOfMonthOrDayOfWeekWhenBothRestricted) {
  // 2026-01-01 is a Thursday: the 13th OR any Friday, so Friday the 2nd.
  EXPECT_EQ(Next("0 0 13 * 5", "UTC", "2026-01-01T00:00:00Z"), "2026-01-02T00:00:00.000Z");
  // `*/2` starts with `*`, so both must match: an odd day that is a Friday.
  EXPECT_EQ(Next("0 0 */2 * 5", "UTC", "2026-01-01T00:00:00Z"), "2026-01-09T00:00:00.000Z");
  // `?` is `*`.
  EXPECT_EQ(Next("0 0 ? * 5", "UTC", "2026-01-01T00:00:00Z"), "2026-01-02T00:00:00.000Z");
}

TEST(NextFireTest, LeapDays) {
  EXPECT_EQ(Next("0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z"), "2028-02-29T00:00:00.000Z");
  // 2100 is not a leap year: eight years to the next 29 February.
  EXPECT_EQ(Next("0 0 29 2 *", "UTC", "2096-03-01T00:00:00Z"), "2104-02-29T00:00:00.000Z");
  EXPECT_EQ(Next("0 0 31 * *", "UTC", "2026-04-01T00:00:00Z"), "2026-05-31T00:00:00.000Z");
}

TEST(NextFireTest, LastDayOfMonth) {
  EXPECT_EQ(Next("0 0 L * *", "UTC", "2026-02-10T00:00:00Z"), "2026-02-28T00:00:00.000Z");
  EXPECT_EQ(Next("0 0 L * *", "UTC", "2028-02-10T00:00:00Z"), "2028-02-29T00:00:00.000Z");
  EXPECT_EQ(Next("0 0 L * *", "UTC", "2026-04-30T00:00:00Z"), "2026-05-31T00:00:00.000Z");
  EXPECT_EQ(Next("0 0 1,L * *", "UTC", "2026-04-02T00:00:00Z"), "2026-04-30T00:00:00.000Z");
}

TEST(NextFireTest, LastWeekdayOfMonth) {
  // Fridays of January 2026: 2, 9, 16, 23, 30.
  EXPECT_EQ(Next("0 0 * * 5L", "UTC", "2026-01-01T00:00:00Z"), "2026-01-30T00:00:00.000Z");
  EXPECT_EQ(Next("0 0 * * FRIL", "UTC", "2026-01-30T00:00:00Z"), "2026-02-27T00:00:00.000Z");
}

TEST(NextFireTest, Macros) {
  const char* after = "2026-01-01T00:00:00Z";  // a Thursday
  EXPECT_EQ(Next("@yearly", "UTC", after), "2027-01-01T00:00:00.000Z");
  EXPECT_EQ(Next("@annually", "UTC", after), "2027-01-01T00:00:00.000Z");
  EXPECT_EQ(Next("@monthly", "UTC", after), "2026-02-01T00:00:00.000Z");
  EXPECT_EQ(Next("@weekly", "UTC", after), "2026-01-04T00:00:00.000Z");
  EXPECT_EQ(Next("@daily", "UTC", after), "2026-01-02T00:00:00.000Z");
  EXPECT_EQ(Next("@MIDNIGHT", "UTC", after), "2026-01-02T00:00:00.000Z");
  EXPECT_EQ(Next("@hourly", "UTC", after), "2026-01-01T01:00:00.000Z");
  EXPECT_EQ(Next("@every 90s", "UTC", "2026-01-01T00:00:00.250Z"), "2026-01-01T00:01:30.250Z");
  EXPECT_EQ(Next("@every 1h30m", "Europe/Berlin", after), "2026-01-01T01:30:00.000Z");
}

TEST(NextFireTest, ZonesShiftLocalTimes) {
  EXPECT_EQ(Next("0 9 * * *", "Europe/Berlin", "2026-01-15T00:00:00Z"), "2026-01-15T08:00:00.000Z");
  EXPECT_EQ(Next("0 9 * * *", "Europe/Berlin", "2026-07-15T00:00:00Z"), "2026-07-15T07:00:00.000Z");
  EXPECT_EQ(Next("0 9 * * *", "Asia/Kolkata", "2026-01-15T00:00:00Z"), "2026-01-15T03:30:00.000Z");
}

// New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT (07:00Z).
TEST(NextFireTest, NewYorkSpringForwardFiresOnceAfterTheGap) {
  EXPECT_EQ(Fires("30 2 * * *", "America/New_York", "2026-03-07T08:00:00Z", 2),
            (std::vector<std::string>{"2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"}));
  // Four matching local times inside the gap fire once.
  EXPECT_EQ(Fires("*/15 2 * * *", "America/New_York", "2026-03-08T06:00:00Z", 2),
            (std::vector<std::string>{"2026-03-08T07:00:00.000Z", "2026-03-09T06:00:00.000Z"}));
}

// New York, 2026-11-01: 02:00 EDT falls back to 01:00 EST (06:00Z).
TEST(NextFireTest, NewYorkFallBackFiresTheFirstOccurrenceOnly) {
  EXPECT_EQ(Fires("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2),
            (std::vector<std::string>{"2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"}));
  // Hourly: 01:00 EDT fires, the repeated 01:00 EST does not, 02:00 EST does.
  EXPECT_EQ(Fires("0 * * * *", "America/New_York", "2026-11-01T04:30:00Z", 2),
            (std::vector<std::string>{"2026-11-01T05:00:00.000Z", "2026-11-01T07:00:00.000Z"}));
  // From inside the repeated hour, its times are already past.
  EXPECT_EQ(Next("30 1 * * *", "America/New_York", "2026-11-01T06:10:00Z"),
            "2026-11-02T06:30:00.000Z");
}

// Berlin: 2026-03-29 02:00 CET -> 03:00 CEST (01:00Z); 2026-10-25 03:00 CEST
// -> 02:00 CET (01:00Z).
TEST(NextFireTest, BerlinBothTransitions) {
  EXPECT_EQ(Next("30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z"),
            "2026-03-29T01:00:00.000Z");
  EXPECT_EQ(Fires("30 2 * * *", "Europe/Berlin", "2026-10-24T12:00:00Z", 2),
            (std::vector<std::string>{"2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"}));
}

// Sydney (southern hemisphere): 2026-04-05 03:00 AEDT -> 02:00 AEST
// (16:00Z the day before); 2026-10-04 02:00 AEST -> 03:00 AEDT (16:00Z).
TEST(NextFireTest, SydneyBothTransitions) {
  EXPECT_EQ(Fires("30 2 * * *", "Australia/Sydney", "2026-04-04T00:00:00Z", 2),
            (std::vector<std::string>{"2026-04-04T15:30:00.000Z", "2026-04-05T16:30:00.000Z"}));
  EXPECT_EQ(Next("30 2 * * *", "Australia/Sydney", "2026-10-03T00:00:00Z"),
            "2026-10-03T16:00:00.000Z");
}

TEST(NextFireTest, StopsAtTheEndOfTime) {
  EXPECT_EQ(Next("0 0 1 1 *", "UTC", "9999-06-01T00:00:00Z"), "none");
  EXPECT_EQ(Next("@every 2d", "UTC", "9999-12-31T00:00:00Z"), "none");
}

TEST(FindTimeZoneTest, KnownAndUnknownZones) {
  EXPECT_TRUE(FindTimeZone("UTC").ok());
  EXPECT_TRUE(FindTimeZone("America/New_York").ok());
  for (std::string_view bad :
       {"", "Mars/Olympus", "../etc/passwd", "america/new_york",
        "Europe/Berlin/Mitte/Somewhere/Far/Too/Long/For/A/Zone/Name/At/All"}) {
    Result<const date::time_zone*> z = FindTimeZone(bad);
    ASSERT_FALSE(z.ok()) << bad;
    EXPECT_EQ(z.status().code(), ErrorCode::kValidation);
    EXPECT_EQ(z.status().field(), "timezone");
  }
}

TEST(FormatLocalTest, WritesTheZonesOffset) {
  const date::time_zone* ny = FindTimeZone("America/New_York").value();
  EXPECT_EQ(FormatLocal(At("2026-03-08T07:00:00Z"), ny), "2026-03-08T03:00:00-04:00");
  EXPECT_EQ(FormatLocal(At("2026-01-08T07:00:00Z"), ny), "2026-01-08T02:00:00-05:00");
  const date::time_zone* kolkata = FindTimeZone("Asia/Kolkata").value();
  EXPECT_EQ(FormatLocal(At("2026-01-15T03:30:00Z"), kolkata), "2026-01-15T09:00:00+05:30");
}

}  // namespace
}  // namespace redrive::cron
