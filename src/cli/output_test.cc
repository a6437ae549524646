#include "cli/output.h"

#include <gtest/gtest.h>

#include <limits>

namespace redrive::cli {
namespace {

using std::chrono::milliseconds;

TEST(PluralTest, OneIsSingularEverythingElsePlural) {
  EXPECT_EQ(Plural(1, "dead job"), "1 dead job");
  EXPECT_EQ(Plural(0, "line"), "0 lines");
  EXPECT_EQ(Plural(2, "line"), "2 lines");
  EXPECT_EQ(Plural(3211, "job"), "3,211 jobs");
  EXPECT_EQ(Plural(2, "entry", "entries"), "2 entries");
}

TEST(GroupedCountTest, ThousandsSeparated) {
  EXPECT_EQ(GroupedCount(0), "0");
  EXPECT_EQ(GroupedCount(999), "999");
  EXPECT_EQ(GroupedCount(1000), "1,000");
  EXPECT_EQ(GroupedCount(1234567), "1,234,567");
  EXPECT_EQ(GroupedCount(-1234), "-1,234");
  EXPECT_EQ(GroupedCount(std::numeric_limits<long long>::min()), "-9,223,372,036,854,775,808");
}

TEST(BackoffTextTest, ReadsAsASentence) {
  EXPECT_EQ(BackoffText({milliseconds(1000), milliseconds(60000), milliseconds(500)}),
            "1s doubling to 1m, plus up to 500ms jitter");
  EXPECT_EQ(BackoffText({milliseconds(2000), milliseconds(3'600'000), milliseconds(0)}),
            "2s doubling to 1h");
  EXPECT_EQ(BackoffText({milliseconds(0), milliseconds(60000), milliseconds(0)}),
            "none (retried at once)");
}

}  // namespace
}  // namespace redrive::cli
