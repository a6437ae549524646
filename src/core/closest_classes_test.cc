#include "core/closest_classes.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

DeadLetterGroup Group(std::string queue, DeadReason reason, std::optional<std::string> error,
                      long long count) {
  DeadLetterGroup g;
  g.queue_name = std::move(queue);
  g.dead_reason = reason;
  g.error = std::move(error);
  g.count = count;
  return g;
}

TEST(PrefixLikenessTest, ComparesTheStartOfTheTextCaseFolded) {
  EXPECT_DOUBLE_EQ(PrefixLikeness("gateway", "gateway timeout"), 1.0);
  EXPECT_DOUBLE_EQ(PrefixLikeness("Gateway", "gateway timeout"), 1.0);
  EXPECT_DOUBLE_EQ(PrefixLikeness("gatewya", "gateway timeout"), 1.0 - 2.0 / 7);
  EXPECT_DOUBLE_EQ(PrefixLikeness("zzz", "abc"), 0.0);
  // What a cut table cell looks like when pasted back.
  EXPECT_DOUBLE_EQ(PrefixLikeness("gateway time\u2026", "gateway timeout"), 1.0);
  EXPECT_DOUBLE_EQ(PrefixLikeness("gateway time...", "gateway timeout"), 1.0);
}

TEST(ClosestClassesTest, RanksByLikenessThenSize) {
  std::vector<DeadLetterGroup> groups = {
      Group("pay", DeadReason::kNonRetryable, "invalid card", 9),
      Group("pay", DeadReason::kMaxRetriesExceeded, "gateway timeout after 30s", 2),
      Group("pay", DeadReason::kMaxRetriesExceeded, "Gateway Timeout (504)", 1),
      Group("pay", DeadReason::kExpired, std::nullopt, 5),
  };
  ClassQuery asked;
  asked.error_prefix = "gateway timeuot";
  auto best = ClosestClasses(groups, asked, 2);
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].error, "gateway timeout after 30s");  // as alike as the next, and larger
  EXPECT_EQ(best[1].error, "Gateway Timeout (504)");

  ClassQuery by_reason;
  by_reason.dead_reason = DeadReason::kExpired;
  EXPECT_EQ(ClosestClasses(groups, by_reason, 1)[0].count, 5);
  // Nothing alike: the largest classes.
  EXPECT_EQ(ClosestClasses(groups, ClassQuery{}, 1)[0].error, "invalid card");
  EXPECT_EQ(ClosestClasses(groups, asked, 10).size(), 4u);
}

}  // namespace
}  // namespace redrive
