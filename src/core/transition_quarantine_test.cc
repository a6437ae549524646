// The events that crashes, quarantine, snoozes and redrive budgets add to the
// job state machine, each on its own with exact times and fixed jitter, as in
// transition_events_test.cc. The table over every (status, event) pair is
// transition_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/limits.h"
#include "core/transition.h"
#include "core/transition_test_util.h"

namespace redrive {
namespace {

// ---------------------------------------------------------------------------
// Crashes and quarantine

// Runs one attempt of `j` (pending) that loses its lease at `now`.
Job Crash(Job j, Instant now) {
  j = ApplyOk(j, event::Claim{"w1", "L", 30s}, now).after;
  return ApplyOk(j, event::LeaseExpiry{}, now + 30s).after;
}

TEST(QuarantineTest, TheThirdLostLeaseQuarantinesInsteadOfRetrying) {
  Job j = JobIn(JobStatus::kPending);
  j.retry_count = 0;
  j.max_retries = 10;
  Instant now = kT0;
  for (int crash = 1; crash <= 2; ++crash) {
    j = Crash(j, now);
    EXPECT_EQ(j.status, JobStatus::kScheduled) << crash;
    EXPECT_EQ(j.crash_count, crash);
    EXPECT_EQ(j.retry_count, crash);  // a crash is still a failed attempt
    now = j.scheduled_at;
    j = ApplyOk(j, event::Promote{}, now).after;
  }
  j = ApplyOk(j, event::Claim{"w1", "L", 30s}, now).after;
  const Change c = ApplyOk(j, event::LeaseExpiry{}, now + 30s);
  EXPECT_EQ(c.outcome, Outcome::kLeaseLostQuarantined);
  EXPECT_EQ(c.after.status, JobStatus::kQuarantined);
  EXPECT_EQ(c.after.crash_count, 3);
  EXPECT_EQ(c.after.retry_count, 2);  // no retry follows, none charged (as a dead-letter)
  EXPECT_EQ(c.after.lease_expiries, 3);
  EXPECT_EQ(c.after.completed_at, now + 30s);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kNone);
  EXPECT_EQ(c.after.deadlettered_at, std::nullopt);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.after.last_error, "lease expired");
  EXPECT_EQ(c.after.error_fingerprint, ErrorFingerprint("lease expired"));
  EXPECT_EQ(c.history->event_type, "quarantined");
  EXPECT_EQ(c.history->worker_id, "w1");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"lease expired","reason":"crash_limit","crash_count":3,)"
            R"("crash_limit":3,"total_retries":2})");
}

TEST(QuarantineTest, QuarantineWinsOverTheDlqWhenNoRetryIsLeft) {
  Job j = ProcessingWithRetries(3, 3);
  j.crash_count = 2;
  j.lease_expires_at = kT0;
  EXPECT_EQ(ApplyOk(j, event::LeaseExpiry{}).after.status, JobStatus::kQuarantined);
  // One crash short: the old way, dead-lettered as lease_expired.
  j.crash_count = 1;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(c.after.crash_count, 2);
}

TEST(QuarantineTest, AnExplicitFailIsNotACrash) {
  Job j = ProcessingWithRetries(0, 10);
  j.crash_count = 2;
  const Change c = ApplyOk(j, FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.crash_count, 2);
  EXPECT_EQ(c.after.retry_count, 1);
}

TEST(QuarantineTest, ReleaseByDeregisterChargesNothing) {
  Job j = ProcessingWithRetries(1, 10);
  j.crash_count = 2;
  const Change c = ApplyOk(j, event::Release{"w1"});
  EXPECT_EQ(c.after.crash_count, 2);
  EXPECT_EQ(c.after.retry_count, 1);
  EXPECT_EQ(c.after.status, JobStatus::kPending);
}

TEST(QuarantineTest, CrashLimitZeroKeepsTheOldBehaviour) {
  Job j = ProcessingWithRetries(3, 3);
  j.crash_limit = 0;
  j.crash_count = 50;
  j.lease_expires_at = kT0;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(c.after.crash_count, 51);
}

TEST(QuarantineTest, APerJobLimitOfOneQuarantinesAtTheFirstCrash) {
  Job j = ProcessingWithRetries(0, 3);
  j.crash_limit = 1;
  j.lease_expires_at = kT0;
  EXPECT_EQ(ApplyOk(j, event::LeaseExpiry{}).after.status, JobStatus::kQuarantined);
}

TEST(QuarantineTest, ATimeoutIsACrashToo) {
  Job j = ProcessingWithRetries(0, 3);
  j.crash_count = 2;
  j.timeout_seconds = 60;
  j.started_at = kT0 - 60s;
  j.lease_expires_at = kT0;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kQuarantined);
  EXPECT_EQ(c.after.last_error, "attempt timed out after 60s");
  // Its class is that of every timeout, whatever the timeout.
  EXPECT_EQ(c.after.error_fingerprint, ErrorFingerprint("attempt timed out after 300s"));
}

TEST(ReleaseQuarantineTest, ResetsCrashesAndAppliesTheBudget) {
  Job q = JobIn(JobStatus::kQuarantined);
  q.expires_at = kT0 - 1s;  // passed while quarantined: dropped, as a redrive does
  Change c = ApplyOk(q, event::ReleaseQuarantine{});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.crash_count, 0);
  EXPECT_EQ(c.after.retry_count, 0);
  EXPECT_EQ(c.after.expires_at, std::nullopt);
  EXPECT_EQ(c.after.lease_expiries, 3);  // history of the job, not a budget
  EXPECT_EQ(c.after.attempts, 3);
  EXPECT_EQ(c.history->details_json,
            R"({"crash_count":3,"budget":"reset","retry_count":0,"max_retries":3,)"
            R"("expires_at_cleared":true})");

  c = ApplyOk(q, event::ReleaseQuarantine{*ParseRetryBudget("keep")});
  EXPECT_EQ(c.after.retry_count, 2);
  EXPECT_EQ(c.after.crash_count, 0);
  c = ApplyOk(q, event::ReleaseQuarantine{*ParseRetryBudget("extend:4")});
  EXPECT_EQ(c.after.retry_count, 2);
  EXPECT_EQ(c.after.max_retries, 7);
}

TEST(ReleaseQuarantineTest, ReleasesIntoATargetQueue) {
  event::ReleaseQuarantine release;
  release.target_queue = "emails-careful";
  const Change c = ApplyOk(JobIn(JobStatus::kQuarantined), release);
  EXPECT_EQ(c.after.queue_name, "emails-careful");
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.history->details_json,
            R"({"crash_count":3,"budget":"reset","retry_count":0,"max_retries":3,)"
            R"("from_queue":"emails","to_queue":"emails-careful"})");
  release.target_queue = "no spaces";
  EXPECT_EQ(ApplyAt(JobIn(JobStatus::kQuarantined), release).status().field(), "target_queue");
}

TEST(ReleaseQuarantineTest, AReleasedJobGetsAWholeCrashBudgetAgain) {
  Job j = ApplyOk(JobIn(JobStatus::kQuarantined), event::ReleaseQuarantine{}).after;
  j.max_retries = 10;
  j = Crash(j, kT0);
  EXPECT_EQ(j.status, JobStatus::kScheduled);
  EXPECT_EQ(j.crash_count, 1);
}

TEST(RetryBudgetTest, RetryKeepsOrExtendsTheBudget) {
  Change c = ApplyOk(
      DeadJob(), event::Retry{"job_retry", std::nullopt, std::nullopt, *ParseRetryBudget("keep")});
  EXPECT_EQ(c.after.retry_count, 3);
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry","budget":"keep"})");
  c = ApplyOk(DeadJob(),
              event::Retry{"dlq_retry", std::nullopt, std::nullopt, *ParseRetryBudget("extend:2")});
  EXPECT_EQ(c.after.retry_count, 3);
  EXPECT_EQ(c.after.max_retries, 5);
  // With its budget kept, the next failure dead-letters again at once.
  Job j = ApplyOk(DeadJob(),
                  event::Retry{"job_retry", std::nullopt, std::nullopt, *ParseRetryBudget("keep")})
              .after;
  j = ApplyOk(j, event::Claim{"w1", "lease-1", 30s}).after;
  EXPECT_EQ(ApplyOk(j, FailBy()).after.status, JobStatus::kDeadletter);
}

// ---------------------------------------------------------------------------
// Snooze

TEST(SnoozeTest, SchedulesWithoutSpendingARetry) {
  Job j = ProcessingWithRetries(1, 3);
  const Change c = ApplyOk(j, event::Snooze{"w1", "lease-1", 1500ms});
  EXPECT_EQ(c.outcome, Outcome::kSnoozed);
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1500ms);
  EXPECT_EQ(c.after.retry_count, 1);
  EXPECT_EQ(c.after.snooze_count, 1);
  EXPECT_EQ(c.after.last_error, std::nullopt);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
}

TEST(SnoozeTest, ZeroDelayIsPendingAtOnce) {
  const Change c = ApplyOk(JobIn(JobStatus::kProcessing), event::Snooze{"w1", "lease-1", 0ms});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
}

TEST(SnoozeTest, IsFencedLikeFail) {
  const Job j = JobIn(JobStatus::kProcessing);
  EXPECT_EQ(ApplyAt(j, event::Snooze{"w1", "lease-0", 1s}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(j, event::Snooze{"w2", "lease-1", 1s}).status().code(),
            ErrorCode::kLeaseExpired);
  Job expired = j;
  expired.lease_expires_at = kT0;
  EXPECT_EQ(ApplyAt(expired, event::Snooze{"w1", "lease-1", 1s}).status().code(),
            ErrorCode::kLeaseExpired);
}

TEST(SnoozeTest, RefusedAtMaxSnoozesWithTheLeaseKept) {
  Job j = JobIn(JobStatus::kProcessing);
  j.max_snoozes = 2;
  j.snooze_count = 2;
  const auto r = ApplyAt(j, event::Snooze{"w1", "lease-1", 1s});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kConflict);
  EXPECT_THAT(r.status().message(), ::testing::HasSubstr("max_snoozes"));
  // The worker still holds the job and may fail it.
  EXPECT_EQ(ApplyOk(j, FailBy()).after.status, JobStatus::kScheduled);
  j.snooze_count = 1;
  EXPECT_EQ(ApplyOk(j, event::Snooze{"w1", "lease-1", 1s}).after.snooze_count, 2);
}

TEST(SnoozeTest, AHugeDelayIsCappedAtTheLimit) {
  const Change c = ApplyOk(JobIn(JobStatus::kProcessing),
                           event::Snooze{"w1", "lease-1", std::chrono::milliseconds::max()});
  EXPECT_EQ(c.after.scheduled_at, kT0 + milliseconds(kMaxSnoozeDelayMs));
}

}  // namespace
}  // namespace redrive
