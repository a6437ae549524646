// The transitions of jobs with dependencies (core/workflow.h), with exact
// times: a blocked job is never claimed, is unblocked to pending or (still
// delayed) scheduled, and a redrive of a job whose dependencies are not met
// sends it back to blocked. The (status, event) table is transition_test.cc.
#include <gtest/gtest.h>

#include "core/transition.h"
#include "core/transition_test_util.h"

namespace redrive {
namespace {

TEST(UnblockTest, ADueJobBecomesPendingAndDueNow) {
  Job job = JobIn(JobStatus::kBlocked);
  const Change c = ApplyOk(job, event::Unblock{"dep-9"});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.outcome, Outcome::kUnblocked);
  ASSERT_TRUE(c.history.has_value());
  EXPECT_EQ(c.history->event_type, "unblocked");
  EXPECT_EQ(c.history->details_json, R"({"cause":"dep-9"})");
}

TEST(UnblockTest, AJobDelayedPastNowBecomesScheduledAndKeepsItsTime) {
  Job job = JobIn(JobStatus::kBlocked);
  job.scheduled_at = kT0 + 1h;
  const Change c = ApplyOk(job, event::Unblock{"dep-9"});
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1h);
}

TEST(BlockTest, KeepsWhenTheJobIsDue) {
  Job job = JobIn(JobStatus::kScheduled);
  job.scheduled_at = kT0 + 5min;
  const Change c = ApplyOk(job, event::Block{});
  EXPECT_EQ(c.after.status, JobStatus::kBlocked);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 5min);
  EXPECT_EQ(c.outcome, Outcome::kBlocked);
}

TEST(BlockedJobTest, IsNeitherClaimedNorPromotedNorExpired) {
  Job job = JobIn(JobStatus::kBlocked);
  job.expires_at = kT0 - 1s;
  EXPECT_EQ(ApplyAt(job, event::Claim{"w", "l", 30s}).status().code(), ErrorCode::kConflict);
  EXPECT_EQ(ApplyAt(job, event::Promote{}).status().code(), ErrorCode::kConflict);
  EXPECT_EQ(ApplyAt(job, event::Deadline{}).status().code(), ErrorCode::kConflict);
}

TEST(RetryTest, ACancelledJobWhoseDependenciesAreNotMetGoesBackToBlocked) {
  Job job = JobIn(JobStatus::kCancelled);
  event::Retry retry;
  retry.dependencies_met = false;
  const Change c = ApplyOk(job, retry);
  EXPECT_EQ(c.after.status, JobStatus::kBlocked);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_FALSE(c.after.completed_at.has_value());
  EXPECT_EQ(c.outcome, Outcome::kRetriedFromCancelled);
  ASSERT_TRUE(c.history.has_value());
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry","budget":"reset","blocked":true})");
}

TEST(RetryTest, ADeadJobWhoseDependenciesAreMetIsPendingAsBefore) {
  Job job = JobIn(JobStatus::kDeadletter);
  event::Retry retry;
  retry.dependencies_met = true;
  EXPECT_EQ(ApplyOk(job, retry).after.status, JobStatus::kPending);
}

}  // namespace
}  // namespace redrive
