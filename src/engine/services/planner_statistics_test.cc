// The planner statistics service on a manual clock: it asks the store every
// interval, whatever the answer (a refresh, nothing to do, an error), and a
// store that keeps no statistics is never asked again.
#include "engine/services/planner_statistics.h"

#include <gtest/gtest.h>

#include <vector>

namespace redrive::engine {
namespace {

using namespace std::chrono_literals;
using store::PlannerStatistics;

TEST(PlannerStatisticsRefreshTest, AsksEveryIntervalAndCountsARefresh) {
  std::vector<Result<PlannerStatistics>> answers = {
      PlannerStatistics::kFresh, PlannerStatistics::kRefreshed,
      Status::Unavailable("the database is down"), PlannerStatistics::kFresh};
  size_t calls = 0;
  PlannerStatisticsRefresh service([&] { return answers.at(calls++); }, 5s);
  EXPECT_STREQ(service.duty(), duty::kPlannerStatistics);  // one node for all
  const Instant t0 = InstantFromMicros(1'000'000);
  const std::vector<long long> changed = {0, 1, 0, 0};
  for (size_t i = 0; i < answers.size(); ++i) {
    const Instant now = t0 + std::chrono::seconds(5 * i);
    ServiceRun run = service.RunOnce(now);
    EXPECT_EQ(calls, i + 1);
    ASSERT_TRUE(run.next_run.has_value()) << i;  // an error is tried again too
    EXPECT_EQ(*run.next_run, now + 5s) << i;
    EXPECT_EQ(run.changed, changed[i]) << i;
    EXPECT_FALSE(run.more);
  }
}

TEST(PlannerStatisticsRefreshTest, AStoreThatKeepsNoneIsNotAskedAgain) {
  int calls = 0;
  PlannerStatisticsRefresh service(
      [&]() -> Result<PlannerStatistics> {
        ++calls;
        return PlannerStatistics::kNotKept;
      },
      1s);
  const Instant now = InstantFromMicros(1'000'000);
  EXPECT_FALSE(service.RunOnce(now).next_run.has_value());
  EXPECT_FALSE(service.RunOnce(now + 1s).next_run.has_value());
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace redrive::engine
