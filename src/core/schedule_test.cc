#include "core/schedule.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(ScheduleNamesTest, EveryValueRoundTrips) {
  for (MissedRunPolicy p :
       {MissedRunPolicy::kSkip, MissedRunPolicy::kRunOnce, MissedRunPolicy::kBackfill}) {
    EXPECT_EQ(ParseMissedRunPolicy(MissedRunPolicyName(p)), p);
  }
  for (OverlapPolicy p :
       {OverlapPolicy::kAllow, OverlapPolicy::kSkipIfRunning, OverlapPolicy::kCancelPrevious}) {
    EXPECT_EQ(ParseOverlapPolicy(OverlapPolicyName(p)), p);
  }
  for (ScheduleRunKind k :
       {ScheduleRunKind::kScheduled, ScheduleRunKind::kManual, ScheduleRunKind::kBackfill}) {
    EXPECT_EQ(ParseScheduleRunKind(ScheduleRunKindName(k)), k);
  }
  EXPECT_EQ(ParseMissedRunPolicy("Skip"), std::nullopt);
  EXPECT_EQ(ParseOverlapPolicy(""), std::nullopt);
  EXPECT_EQ(ParseScheduleRunKind("cron"), std::nullopt);
}

}  // namespace
}  // namespace redrive
