#include "cron/cron_expression.h"

#include <gtest/gtest.h>

namespace redrive::cron {
namespace {

TEST(ParseCronTest, FiveFieldsFireAtSecondZero) {
  Result<CronExpression> e = ParseCron("*/15 9-17 * * MON-FRI");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->seconds.count(), 1u);
  EXPECT_TRUE(e->seconds[0]);
  EXPECT_EQ(e->minutes.count(), 4u);
  EXPECT_EQ(e->hours.count(), 9u);
  EXPECT_EQ(e->days_of_week.count(), 5u);
  EXPECT_FALSE(e->days_of_week[0]);
  EXPECT_FALSE(e->day_of_month_restricted);
  EXPECT_TRUE(e->day_of_week_restricted);
}

TEST(ParseCronTest, SixFieldsStartWithSeconds) {
  Result<CronExpression> e = ParseCron("  10,20\t0 12 1 jan ?  ");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->seconds.count(), 2u);
  EXPECT_TRUE(e->seconds[10] && e->seconds[20]);
  EXPECT_TRUE(e->months[1]);
  EXPECT_EQ(e->months.count(), 1u);
  EXPECT_FALSE(e->day_of_week_restricted);
}

TEST(ParseCronTest, SundayIsZeroAndSeven) {
  Result<CronExpression> e = ParseCron("0 0 * * 5-7");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->days_of_week[5] && e->days_of_week[6] && e->days_of_week[0]);
  EXPECT_EQ(e->days_of_week.count(), 3u);
}

TEST(ParseCronTest, LastDays) {
  Result<CronExpression> e = ParseCron("0 0 L * 5L,SUNL");
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_TRUE(e->last_day_of_month);
  EXPECT_TRUE(e->last_weekday_of_month[5]);
  EXPECT_TRUE(e->last_weekday_of_month[0]);
  EXPECT_EQ(e->days_of_week.count(), 0u);
}

TEST(ParseCronTest, Every) {
  Result<CronExpression> e = ParseCron("@every 1h30m");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->every, std::chrono::minutes(90));
}

struct BadCase {
  const char* expression;
  const char* field;
  std::size_t position;
};

TEST(ParseCronTest, ErrorsNameTheFieldAndThePosition) {
  const BadCase cases[] = {
      {"", "expression", 1},
      {"* * *", "expression", 1},
      {"* * * * * * *", "expression", 1},
      {"60 * * * * *", "second", 1},
      {"61 * * * *", "minute", 1},
      {"* 24 * * *", "hour", 3},
      {"* * 0 * *", "day_of_month", 5},
      {"* * 32 * *", "day_of_month", 5},
      {"* * * 13 *", "month", 7},
      {"* * * JANUARY *", "month", 7},
      {"* * * * 8", "day_of_week", 9},
      {"* * * * FRY", "day_of_week", 9},
      {"*/0 * * * *", "minute", 3},
      {"*/x * * * *", "minute", 3},
      {"5-1 * * * *", "minute", 1},
      {"1-x * * * *", "minute", 3},
      {"1,,2 * * * *", "minute", 3},
      {"1, * * * *", "minute", 3},
      {"? * * * *", "minute", 1},
      {"0 0 ?/2 * *", "day_of_month", 5},
      {"0 0 L * L", "day_of_week", 9},
      {"0 0 15L * *", "day_of_month", 5},
      {"0 0 * * 8L", "day_of_week", 9},
      {"-1 * * * *", "minute", 1},
      {"0 0 30 2 *", "day_of_month", 5},
      {"0 0 31 2,4 *", "day_of_month", 5},
      {"@fortnightly", "expression", 1},
      {"@daily extra", "expression", 1},
      {"@every", "expression", 1},
      {"@every 0s", "expression", 8},
      {"@every 500ms", "expression", 8},
      {"@every 367d", "expression", 8},
      {"@every soon", "expression", 8},
  };
  for (const BadCase& c : cases) {
    CronSyntaxError error;
    Result<CronExpression> e = ParseCron(c.expression, &error);
    ASSERT_FALSE(e.ok()) << c.expression;
    EXPECT_EQ(e.status().code(), ErrorCode::kValidation) << c.expression;
    EXPECT_EQ(e.status().field(), "cron_expression") << c.expression;
    EXPECT_EQ(error.field, c.field) << c.expression << ": " << error.Describe();
    EXPECT_EQ(error.position, c.position) << c.expression << ": " << error.Describe();
    EXPECT_EQ(e.status().message(), error.Describe());
  }
}

TEST(ParseCronTest, DescribeReadsAsASentence) {
  CronSyntaxError error;
  ASSERT_FALSE(ParseCron("0 9 * * FRY", &error).ok());
  EXPECT_EQ(error.Describe(), "day_of_week at position 9: unknown value 'FRY'");
}

TEST(ParseCronTest, RefusesOverlongExpressions) {
  CronSyntaxError error;
  ASSERT_FALSE(ParseCron(std::string(kMaxExpressionLength + 1, '*'), &error).ok());
  EXPECT_EQ(error.field, "expression");
}

TEST(ParseCronTest, LastMatchesOnlyTheLastDay) {
  Result<CronExpression> e = ParseCron("0 0 L * *");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->MatchesDay(28, 6, 28));
  EXPECT_FALSE(e->MatchesDay(28, 6, 29));
  Result<CronExpression> friday = ParseCron("0 0 * * 5L");
  ASSERT_TRUE(friday.ok());
  EXPECT_TRUE(friday->MatchesDay(25, 5, 31));
  EXPECT_FALSE(friday->MatchesDay(24, 5, 31));
  EXPECT_FALSE(friday->MatchesDay(25, 4, 31));
}

}  // namespace
}  // namespace redrive::cron
