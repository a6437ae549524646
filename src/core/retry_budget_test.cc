#include "core/retry_budget.h"

#include <gtest/gtest.h>

#include "core/limits.h"

namespace redrive {
namespace {

TEST(RetryBudgetTest, ParsesEveryFormAndReadsBackItsText) {
  for (std::string_view text : {"reset", "keep", "extend:1", "extend:5", "extend:100"}) {
    std::optional<RetryBudget> b = ParseRetryBudget(text);
    ASSERT_TRUE(b) << text;
    EXPECT_EQ(RetryBudgetText(*b), text);
  }
  EXPECT_EQ(ParseRetryBudget("extend:7")->extend, 7);
  EXPECT_EQ(ParseRetryBudget("keep")->kind, RetryBudget::Kind::kKeep);
}

TEST(RetryBudgetTest, RefusesUnknownFormsAndOutOfRangeExtensions) {
  for (std::string_view text :
       {"", "Reset", "extend", "extend:", "extend:0", "extend:101", "extend:-1", "extend:+1",
        "extend:05", "extend:1x", "extend:1000", "extend:99999999999999999999", "keep ", "more"}) {
    EXPECT_FALSE(ParseRetryBudget(text)) << text;
  }
}

TEST(RetryBudgetTest, AppliesToRetryCountAndMaxRetries) {
  Job j;
  j.retry_count = 3;
  j.max_retries = 3;
  Job reset = j;
  ApplyRetryBudget(RetryBudget{}, reset);
  EXPECT_EQ(reset.retry_count, 0);
  EXPECT_EQ(reset.max_retries, 3);

  Job keep = j;
  ApplyRetryBudget(*ParseRetryBudget("keep"), keep);
  EXPECT_EQ(keep.retry_count, 3);
  EXPECT_EQ(keep.max_retries, 3);

  Job extend = j;
  ApplyRetryBudget(*ParseRetryBudget("extend:2"), extend);
  EXPECT_EQ(extend.retry_count, 3);
  EXPECT_EQ(extend.max_retries, 5);

  // Capped at the limit of max_retries.
  Job big = j;
  big.max_retries = 90;
  ApplyRetryBudget(*ParseRetryBudget("extend:50"), big);
  EXPECT_EQ(big.max_retries, kMaxMaxRetries);
}

}  // namespace
}  // namespace redrive
