// Each event of the job state machine on its own, with exact times (a fixed
// base instant) and fixed jitter (FixedRandom). No clock is read and nothing
// sleeps. The table over every (status, event) pair is transition_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "core/limits.h"
#include "core/transition.h"
#include "core/transition_test_util.h"

namespace redrive {
namespace {

TEST(ClaimTest, LeaseIsNowPlusDurationWhenWithinTimeout) {
  Job j = JobIn(JobStatus::kPending);
  j.timeout_seconds = 300;
  const Change c = ApplyOk(j, event::Claim{"w9", "L", 45s});
  EXPECT_EQ(c.after.status, JobStatus::kProcessing);
  EXPECT_EQ(c.after.started_at, kT0);
  EXPECT_EQ(c.after.lease_expires_at, kT0 + 45s);
  EXPECT_EQ(c.after.attempts, 2);
  EXPECT_EQ(c.after.retry_count, 1);  // a claim charges no retry
  EXPECT_EQ(c.after.assigned_worker_id, "w9");
  EXPECT_EQ(c.after.lease_id, "L");
  EXPECT_EQ(c.before.status, JobStatus::kPending);
  EXPECT_EQ(c.before.lease_id, std::nullopt);
}

TEST(ClaimTest, LeaseIsCappedAtTheAttemptTimeout) {
  Job j = JobIn(JobStatus::kPending);
  j.timeout_seconds = 10;
  EXPECT_EQ(ApplyOk(j, event::Claim{"w", "L", 30s}).after.lease_expires_at, kT0 + 10s);
  j.timeout_seconds = 30;  // equal: either bound
  EXPECT_EQ(ApplyOk(j, event::Claim{"w", "L", 30s}).after.lease_expires_at, kT0 + 30s);
}

TEST(ClaimTest, AttemptsCountEveryClaim) {
  Job j = JobIn(JobStatus::kPending);
  j.attempts = 0;
  const Change c = ApplyOk(j, event::Claim{"w", "L", 30s});
  EXPECT_EQ(c.after.attempts, 1);
  EXPECT_EQ(c.history->details_json, R"({"lease_id":"L","attempt":1})");
}

TEST(ClaimTest, NeverAtOrAfterExpiresAt) {
  Job j = JobIn(JobStatus::kPending);
  j.expires_at = kT0;
  auto r = ApplyAt(j, event::Claim{"w", "L", 30s});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kConflict);
  j.expires_at = kT0 - 1s;
  EXPECT_EQ(ApplyAt(j, event::Claim{"w", "L", 30s}).status().code(), ErrorCode::kConflict);
  j.expires_at = kT0 + 1us;
  EXPECT_TRUE(ApplyAt(j, event::Claim{"w", "L", 30s}).ok());
}

// ---------------------------------------------------------------------------
// Promote

TEST(PromoteTest, OnlyWhenDue) {
  Job j = JobIn(JobStatus::kScheduled);
  j.scheduled_at = kT0 + 1us;
  EXPECT_EQ(ApplyAt(j, event::Promote{}).status().code(), ErrorCode::kConflict);
  EXPECT_EQ(ApplyOk(j, event::Promote{}, kT0 + 1us).after.status, JobStatus::kPending);
  EXPECT_EQ(ApplyOk(j, event::Promote{}, kT0 + 1h).after.scheduled_at, kT0 + 1us);
}

// ---------------------------------------------------------------------------
// Heartbeat

TEST(HeartbeatTest, ExtendsFromNowByTheGivenDuration) {
  const Job j = JobIn(JobStatus::kProcessing);
  const Change c = ApplyOk(j, event::Heartbeat{"w1", "lease-1", 60s}, kT0 + 5s);
  EXPECT_EQ(c.after.lease_expires_at, kT0 + 65s);
  EXPECT_EQ(c.after.status, JobStatus::kProcessing);
  EXPECT_EQ(c.after.lease_id, "lease-1");
  EXPECT_EQ(c.after.started_at, j.started_at);
  EXPECT_FALSE(c.history.has_value());
  EXPECT_EQ(c.before.lease_id, "lease-1");
}

TEST(HeartbeatTest, CappedAtStartedAtPlusTimeout) {
  Job j = JobIn(JobStatus::kProcessing);
  j.started_at = kT0 - 290s;
  j.timeout_seconds = 300;
  j.lease_expires_at = kT0 + 5s;
  EXPECT_EQ(ApplyOk(j, event::Heartbeat{"w1", "lease-1", 30s}).after.lease_expires_at, kT0 + 10s);
  // Already at the cap: stays there.
  j.lease_expires_at = kT0 + 10s;
  EXPECT_EQ(ApplyOk(j, event::Heartbeat{"w1", "lease-1", 3600s}).after.lease_expires_at, kT0 + 10s);
}

TEST(HeartbeatTest, RefusedWithWrongLeaseId) {
  const auto r = ApplyAt(JobIn(JobStatus::kProcessing), event::Heartbeat{"w1", "lease-0", 30s});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kLeaseExpired);
}

TEST(HeartbeatTest, RefusedWithWrongWorkerId) {
  const auto r = ApplyAt(JobIn(JobStatus::kProcessing), event::Heartbeat{"w2", "lease-1", 30s});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kLeaseExpired);
}

TEST(HeartbeatTest, ExpiredLeaseIsNeverExtended) {
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0;  // == now counts as expired
  EXPECT_EQ(ApplyAt(j, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
            ErrorCode::kLeaseExpired);
  j.lease_expires_at = kT0 - 1s;
  EXPECT_EQ(ApplyAt(j, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
            ErrorCode::kLeaseExpired);
  j.lease_expires_at = kT0 + 1us;  // one microsecond left: still held
  EXPECT_EQ(ApplyOk(j, event::Heartbeat{"w1", "lease-1", 30s}).after.lease_expires_at, kT0 + 30s);
}

TEST(HeartbeatTest, RefusedWhenNotProcessing) {
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kDeadletter,
                      JobStatus::kCancelled}) {
    Job j = JobIn(s);
    EXPECT_EQ(ApplyAt(j, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
              ErrorCode::kLeaseExpired)
        << JobStatusName(s);
  }
  EXPECT_EQ(
      ApplyAt(JobIn(JobStatus::kCompleted), event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
      ErrorCode::kConflict);
}

// Without a lease_id (Spooled's SDK may omit it), worker_id alone must name
// the current holder of an unexpired lease; the guard is still the job's
// lease, so the write races with nothing unnoticed.
TEST(HolderWithoutLeaseIdTest, AcceptedForTheCurrentHolder) {
  const Job j = JobIn(JobStatus::kProcessing);
  const Change beat = ApplyOk(j, event::Heartbeat{"w1", std::nullopt, 60s});
  EXPECT_EQ(beat.after.lease_expires_at, kT0 + 60s);
  EXPECT_EQ(beat.before.lease_id, "lease-1");  // the store's guard
  EXPECT_EQ(ApplyOk(j, event::Complete{"w1", std::nullopt, "1"}).after.status,
            JobStatus::kCompleted);
  EXPECT_EQ(ApplyOk(j, event::Fail{"w1", std::nullopt, "e", true, std::nullopt}).after.status,
            JobStatus::kDeadletter);
}

TEST(HolderWithoutLeaseIdTest, RefusedForAnotherWorkerAnExpiredLeaseOrAJobNotHeld) {
  const Job j = JobIn(JobStatus::kProcessing);
  EXPECT_EQ(ApplyAt(j, event::Heartbeat{"w2", std::nullopt, 30s}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(j, event::Complete{"w2", std::nullopt, "1"}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(j, event::Fail{"w2", std::nullopt, "e", false, std::nullopt}).status().code(),
            ErrorCode::kLeaseExpired);
  Job expired = j;
  expired.lease_expires_at = kT0;
  EXPECT_EQ(ApplyAt(expired, event::Complete{"w1", std::nullopt, "1"}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(
      ApplyAt(JobIn(JobStatus::kPending), event::Complete{"w1", std::nullopt, "1"}).status().code(),
      ErrorCode::kLeaseExpired);
  // A lease_id that is given is still checked: the strict fence.
  EXPECT_EQ(ApplyAt(j, event::Complete{"w1", std::string("lease-0"), "1"}).status().code(),
            ErrorCode::kLeaseExpired);
}

// ---------------------------------------------------------------------------
// Complete

TEST(CompleteTest, StoresResultAndClearsLease) {
  const Change c =
      ApplyOk(JobIn(JobStatus::kProcessing), event::Complete{"w1", "lease-1", std::nullopt});
  EXPECT_EQ(c.after.status, JobStatus::kCompleted);
  EXPECT_EQ(c.after.result, std::nullopt);
  EXPECT_EQ(c.after.completed_at, kT0);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.after.assigned_worker_id, std::nullopt);
  EXPECT_EQ(c.after.lease_expires_at, std::nullopt);
}

TEST(CompleteTest, CompletingTwiceIsConflict) {
  const event::Complete done{"w1", "lease-1", "1"};
  const Change first = ApplyOk(JobIn(JobStatus::kProcessing), done);
  const auto second = ApplyAt(first.after, done, kT0 + 1s);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), ErrorCode::kConflict);
  // Whoever asks.
  EXPECT_EQ(ApplyAt(first.after, event::Complete{"w2", "x", std::nullopt}).status().code(),
            ErrorCode::kConflict);
}

TEST(CompleteTest, CancelledJobAnswersLeaseExpired) {
  const Change cancelled = ApplyOk(JobIn(JobStatus::kProcessing), event::Cancel{});
  const auto r = ApplyAt(cancelled.after, event::Complete{"w1", "lease-1", "1"}, kT0 + 1s);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(cancelled.after, event::Fail{"w1", "lease-1", "e", false, std::nullopt})
                .status()
                .code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(cancelled.after, event::Heartbeat{"w1", "lease-1", 30s}).status().code(),
            ErrorCode::kLeaseExpired);
}

TEST(CompleteTest, StaleHolderAfterReclaimAnswersLeaseExpired) {
  // w1's lease expired, the job was retried and claimed again by w2.
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0;
  Job reaped = ApplyOk(j, event::LeaseExpiry{}).after;
  Job again = ApplyOk(reaped, event::Promote{}, reaped.scheduled_at).after;
  Job reclaimed = ApplyOk(again, event::Claim{"w2", "lease-2", 30s}, reaped.scheduled_at).after;
  const Instant later = reaped.scheduled_at + 1s;
  EXPECT_EQ(ApplyAt(reclaimed, event::Complete{"w1", "lease-1", "1"}, later).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(reclaimed, event::Complete{"w1", "lease-2", "1"}, later).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_TRUE(ApplyAt(reclaimed, event::Complete{"w2", "lease-2", "1"}, later).ok());
}

TEST(CompleteTest, RefusedOnExpiredLease) {
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0;
  EXPECT_EQ(ApplyAt(j, event::Complete{"w1", "lease-1", "1"}).status().code(),
            ErrorCode::kLeaseExpired);
}

// ---------------------------------------------------------------------------
// Fail and backoff

TEST(FailTest, BackoffDelayIsExactForEachRetry) {
  // delay(n) = min(1000 ms · 2^(n−1), 60000 ms) + 250 ms (fixed jitter).
  const milliseconds kWant[] = {1000ms, 2000ms, 4000ms, 8000ms, 16000ms, 32000ms, 60000ms, 60000ms};
  for (int n = 1; n <= 8; ++n) {
    SCOPED_TRACE(n);
    const Change c = ApplyOk(ProcessingWithRetries(n - 1, 10), FailBy());
    EXPECT_EQ(c.after.status, JobStatus::kScheduled);
    EXPECT_EQ(c.after.retry_count, n);
    EXPECT_EQ(c.after.scheduled_at, kT0 + kWant[n - 1] + kJitter);
    EXPECT_EQ(c.history->event_type, "retry_scheduled");
    EXPECT_EQ(c.history->details_json, R"({"error":"boom","retry_count":)" + std::to_string(n) +
                                           R"(,"next_run":")" +
                                           FormatTime(kT0 + kWant[n - 1] + kJitter) + R"("})");
  }
}

TEST(FailTest, JitterBoundIsInclusive) {
  const Job j = ProcessingWithRetries(0, 3);
  EXPECT_EQ(ApplyOk(j, FailBy(), kT0, 500'000).after.scheduled_at, kT0 + 1500ms);
  EXPECT_EQ(ApplyOk(j, FailBy(), kT0, 500'001).after.scheduled_at, kT0 + 1000ms);
  EXPECT_EQ(ApplyOk(j, FailBy(), kT0, 0).after.scheduled_at, kT0 + 1000ms);
}

TEST(FailTest, AtMaxRetriesGoesToTheDlq) {
  const Change c = ApplyOk(ProcessingWithRetries(3, 3), FailBy("still broken"));
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ(c.after.retry_count, 3);
  EXPECT_EQ(c.after.last_error, "still broken");
  EXPECT_EQ(c.after.error_fingerprint, ErrorFingerprint("still broken"));
  EXPECT_EQ(c.after.deadlettered_at, kT0);
  EXPECT_EQ(c.after.completed_at, kT0);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.outcome, Outcome::kFailedDeadlettered);
  EXPECT_EQ(c.history->event_type, "deadlettered");
  EXPECT_EQ(c.history->worker_id, "w1");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"still broken","reason":"max_retries_exceeded","total_retries":3})");
}

// The worker's details of the attempt go into the history entry, not the job.
TEST(FailTest, AttemptDetailsAreRecordedInTheHistoryEntry) {
  event::Fail fail = FailBy("gateway timeout");
  fail.details_json = R"({"exit_code":1})";
  const Change retried = ApplyOk(ProcessingWithRetries(0, 3), fail);
  EXPECT_EQ(retried.after.last_error, "gateway timeout");
  EXPECT_EQ(retried.history->details_json,
            R"({"error":"gateway timeout","retry_count":1,"next_run":")" +
                FormatTime(retried.after.scheduled_at) + R"(","attempt":{"exit_code":1}})");
  const Change dead = ApplyOk(ProcessingWithRetries(3, 3), fail);
  EXPECT_EQ(dead.history->details_json,
            R"({"error":"gateway timeout","reason":"max_retries_exceeded","total_retries":3,)"
            R"("attempt":{"exit_code":1}})");
}

TEST(FailTest, ZeroMaxRetriesDeadLettersOnFirstFailure) {
  const Change c = ApplyOk(ProcessingWithRetries(0, 0), FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kMaxRetriesExceeded);
}

TEST(FailTest, NoRetryIsNonRetryable) {
  event::Fail f = FailBy("bad input");
  f.no_retry = true;
  f.retry_after = 1000ms;  // ignored
  const Change c = ApplyOk(ProcessingWithRetries(0, 3), f);
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kNonRetryable);
  EXPECT_EQ(c.after.retry_count, 0);
  EXPECT_EQ(c.history->details_json,
            R"({"error":"bad input","reason":"non_retryable","total_retries":0})");
}

TEST(FailTest, RetryAfterOverridesTheBackoff) {
  event::Fail f = FailBy();
  f.retry_after = 7000ms;
  const Change c = ApplyOk(ProcessingWithRetries(5, 10), f);  // backoff would be 32 s
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 7s);  // no jitter either
  EXPECT_EQ(c.after.retry_count, 6);
}

TEST(FailTest, RetryAfterDoesNotBypassMaxRetries) {
  event::Fail f = FailBy();
  f.retry_after = 7000ms;
  const Change c = ApplyOk(ProcessingWithRetries(3, 3), f);
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kMaxRetriesExceeded);
}

TEST(FailTest, ZeroDelayRetryIsPendingDirectly) {
  event::Fail f = FailBy();
  f.retry_after = 0ms;
  Change c = ApplyOk(ProcessingWithRetries(0, 3), f);
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.history->event_type, "retry_scheduled");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"boom","retry_count":1,"next_run":"2026-11-29T12:00:00.000Z"})");

  Job j = ProcessingWithRetries(2, 3);
  j.backoff = {0ms, 0ms, 0ms};  // a zero base retries at once
  c = ApplyOk(j, FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.after.retry_count, 3);
}

TEST(FailTest, RetryDueAtOrAfterDeadlineIsExpired) {
  Job j = ProcessingWithRetries(0, 3);  // next run would be now + 1 s + 250 ms
  j.expires_at = kT0 + 1250ms;
  Change c = ApplyOk(j, FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kExpired);
  EXPECT_EQ(c.after.retry_count, 0);
  EXPECT_EQ(c.history->details_json, R"({"error":"boom","reason":"expired","total_retries":0})");

  j.expires_at = kT0 + 1250ms + 1us;
  c = ApplyOk(j, FailBy());
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1250ms);
  EXPECT_EQ(c.after.expires_at, kT0 + 1250ms + 1us);
}

TEST(FailTest, RefusedWithForeignOrStaleLease) {
  const Job j = JobIn(JobStatus::kProcessing);
  EXPECT_EQ(ApplyAt(j, event::Fail{"w1", "lease-x", "e", false, std::nullopt}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(j, event::Fail{"w2", "lease-1", "e", false, std::nullopt}).status().code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ApplyAt(j, FailBy(), kT0 + 20s).status().code(), ErrorCode::kLeaseExpired);
}

TEST(FailTest, ErrorIsTruncatedTo2048BytesAtAUtf8Boundary) {
  const Job j = ProcessingWithRetries(0, 3);
  auto error_after = [&](const std::string& error) {
    return ApplyOk(j, FailBy(error)).after.last_error.value_or("<none>");
  };
  EXPECT_EQ(error_after(std::string(2048, 'x')), std::string(2048, 'x'));
  EXPECT_EQ(error_after(std::string(5000, 'x')), std::string(2048, 'x'));
  // A 2-, 3- and 4-byte character straddling the limit is dropped whole.
  EXPECT_EQ(error_after(std::string(2047, 'x') + "\xC3\xA9"), std::string(2047, 'x'));
  EXPECT_EQ(error_after(std::string(2046, 'x') + "\xE2\x82\xAC"), std::string(2046, 'x'));
  EXPECT_EQ(error_after(std::string(2045, 'x') + "\xF0\x9F\x98\x80" + "tail"),
            std::string(2045, 'x'));
  // One that ends exactly at the limit is kept.
  EXPECT_EQ(error_after(std::string(2044, 'x') + "\xF0\x9F\x98\x80" + "tail"),
            std::string(2044, 'x') + "\xF0\x9F\x98\x80");
  // The history carries the truncated text too.
  const Change c = ApplyOk(j, FailBy(std::string(3000, 'y')));
  EXPECT_EQ(c.history->details_json, R"({"error":")" + std::string(2048, 'y') +
                                         R"(","retry_count":1,"next_run":")" +
                                         FormatTime(kT0 + 1250ms) + R"("})");
}

TEST(FailTest, ErrorIsEscapedInHistory) {
  const Change c = ApplyOk(ProcessingWithRetries(0, 3), FailBy("said \"no\"\n\\"));
  EXPECT_EQ(c.after.last_error, "said \"no\"\n\\");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"said \"no\"\n\\","retry_count":1,"next_run":"2026-11-29T12:00:01.250Z"})");
}

// ---------------------------------------------------------------------------
// Lease expiry and timeouts

TEST(LeaseExpiryTest, RefusedWhileTheLeaseIsValid) {
  Job j = JobIn(JobStatus::kProcessing);
  j.lease_expires_at = kT0 + 1us;
  EXPECT_EQ(ApplyAt(j, event::LeaseExpiry{}).status().code(), ErrorCode::kConflict);
}

TEST(LeaseExpiryTest, CountsAsAFailureWithBackoff) {
  Job j = ProcessingWithRetries(0, 3);
  j.lease_expires_at = kT0 - 3s;  // noticed late
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.retry_count, 1);
  EXPECT_EQ(c.after.lease_expiries, 1);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1250ms);  // from now, not from the lease's end
  EXPECT_EQ(c.after.last_error, "lease expired");
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.history->event_type, "lease_expired");
  EXPECT_EQ(c.history->worker_id, "w1");
  EXPECT_EQ(c.before.status, JobStatus::kProcessing);
  EXPECT_EQ(c.before.lease_id, "lease-1");
}

TEST(LeaseExpiryTest, AtTheLastRetryDeadLettersWithReasonLeaseExpired) {
  Job j = ProcessingWithRetries(3, 3);
  j.lease_expires_at = kT0;
  j.lease_expiries = 2;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(c.after.lease_expiries, 3);
  EXPECT_EQ(c.after.deadlettered_at, kT0);
  EXPECT_EQ(c.outcome, Outcome::kLeaseLostDeadlettered);
  EXPECT_EQ(c.history->event_type, "deadlettered");
  EXPECT_EQ(c.history->details_json,
            R"({"error":"lease expired","reason":"lease_expired","total_retries":3})");
}

TEST(LeaseExpiryTest, LeaseCappedAtTheAttemptTimeoutIsATimeout) {
  Job j = ProcessingWithRetries(0, 3);
  j.timeout_seconds = 60;
  j.started_at = kT0 - 60s;
  j.lease_expires_at = kT0;  // == started_at + timeout
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.last_error, "attempt timed out after 60s");
  EXPECT_THAT(*c.after.last_error, ::testing::HasSubstr("timed out"));
  EXPECT_EQ(c.after.lease_expiries, 1);
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.history->event_type, "lease_expired");

  // One microsecond short of the cap: a plain lease loss.
  j.lease_expires_at = kT0 - 1us;
  EXPECT_EQ(ApplyOk(j, event::LeaseExpiry{}).after.last_error, "lease expired");
}

TEST(LeaseExpiryTest, TimeoutOfTheLastAttemptIsReasonLeaseExpired) {
  Job j = ProcessingWithRetries(3, 3);
  j.timeout_seconds = 60;
  j.started_at = kT0 - 60s;
  j.lease_expires_at = kT0;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(
      c.history->details_json,
      R"({"error":"attempt timed out after 60s","reason":"lease_expired","total_retries":3})");
}

TEST(LeaseExpiryTest, RetryAtOrAfterDeadlineIsExpired) {
  Job j = ProcessingWithRetries(0, 3);
  j.lease_expires_at = kT0;
  j.expires_at = kT0 + 1s;
  const Change c = ApplyOk(j, event::LeaseExpiry{});
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kExpired);
  EXPECT_EQ(c.after.lease_expiries, 1);
}

// ---------------------------------------------------------------------------
// Deadline sweep

TEST(DeadlineTest, RefusedBeforeTheDeadlineOrWithoutOne) {
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled}) {
    Job j = JobIn(s);
    EXPECT_EQ(ApplyAt(j, event::Deadline{}).status().code(), ErrorCode::kConflict);
    j.expires_at = kT0 + 1us;
    EXPECT_EQ(ApplyAt(j, event::Deadline{}).status().code(), ErrorCode::kConflict);
    j.expires_at = kT0 - 1h;
    const Change c = ApplyOk(j, event::Deadline{});
    EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
    EXPECT_EQ(c.after.dead_reason, DeadReason::kExpired);
    EXPECT_EQ(c.after.expires_at, kT0 - 1h);
  }
}

TEST(DeadlineTest, ARunningJobIsNotInterrupted) {
  Job j = JobIn(JobStatus::kProcessing);
  j.expires_at = kT0 - 1s;
  EXPECT_EQ(ApplyAt(j, event::Deadline{}).status().code(), ErrorCode::kConflict);
  // ...and may still complete.
  EXPECT_EQ(ApplyOk(j, event::Complete{"w1", "lease-1", "1"}).after.status, JobStatus::kCompleted);
}

// ---------------------------------------------------------------------------
// Cancel

TEST(CancelTest, ProcessingJobLosesItsLease) {
  const Change c = ApplyOk(JobIn(JobStatus::kProcessing), event::Cancel{});
  EXPECT_EQ(c.after.status, JobStatus::kCancelled);
  EXPECT_EQ(c.after.assigned_worker_id, std::nullopt);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.after.lease_expires_at, std::nullopt);
  EXPECT_EQ(c.after.completed_at, kT0);
  EXPECT_EQ(c.after.retry_count, 1);  // not a failure
  EXPECT_EQ(c.before.status, JobStatus::kProcessing);
  EXPECT_EQ(c.before.lease_id, "lease-1");
}

// ---------------------------------------------------------------------------
// Retry (redrive)

TEST(RetryTest, ResetsFailureStateAndKeepsCounters) {
  const Job j = DeadJob();
  const Change c = ApplyOk(j, event::Retry{});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.after.retry_count, 0);
  EXPECT_EQ(c.after.last_error, std::nullopt);
  EXPECT_EQ(c.after.dead_reason, DeadReason::kNone);
  EXPECT_EQ(c.after.deadlettered_at, std::nullopt);
  EXPECT_EQ(c.after.completed_at, std::nullopt);
  EXPECT_EQ(c.after.attempts, 4);
  EXPECT_EQ(c.after.lease_expiries, 2);
  EXPECT_EQ(c.after.payload, j.payload);
  EXPECT_EQ(c.after.max_retries, j.max_retries);
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry","budget":"reset"})");
}

TEST(RetryTest, RedrivesIntoATargetQueueAndSaysSoInTheHistory) {
  event::Retry retry;
  retry.source = "dlq_retry";
  retry.target_queue = "emails-slow";
  const Change c = ApplyOk(DeadJob(), retry);
  EXPECT_EQ(c.before.queue_name, "emails");
  EXPECT_EQ(c.after.queue_name, "emails-slow");
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.outcome, Outcome::kRedriven);
  EXPECT_EQ(c.history->details_json,
            R"({"source":"dlq_retry","budget":"reset","from_queue":"emails",)"
            R"("to_queue":"emails-slow"})");
  // Its own queue is no move, and is not recorded as one.
  retry.target_queue = "emails";
  const Change same = ApplyOk(DeadJob(), retry);
  EXPECT_EQ(same.after.queue_name, "emails");
  EXPECT_EQ(same.history->details_json, R"({"source":"dlq_retry","budget":"reset"})");
}

TEST(RetryTest, RefusesATargetThatIsNoQueueName) {
  for (const char* bad : {"", ".hidden", "a b", "-x"}) {
    event::Retry retry;
    retry.target_queue = bad;
    const auto r = ApplyAt(DeadJob(), retry);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kValidation);
    EXPECT_EQ(r.status().field(), "target_queue");
  }
}

TEST(RetryTest, SetsANewDeadline) {
  Job j = DeadJob();
  j.expires_at = kT0 - 1h;
  const Change c = ApplyOk(j, event::Retry{"job_retry", kT0 + 1h, std::nullopt});
  EXPECT_EQ(c.after.expires_at, kT0 + 1h);
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry","budget":"reset"})");
}

TEST(RetryTest, ClearsAPassedDeadline) {
  Job j = DeadJob();
  for (Instant passed : {kT0 - 1h, kT0}) {
    j.expires_at = passed;
    const Change c = ApplyOk(j, event::Retry{"dlq_retry", std::nullopt, std::nullopt});
    EXPECT_EQ(c.after.expires_at, std::nullopt);
    EXPECT_EQ(c.history->details_json,
              R"({"source":"dlq_retry","budget":"reset","expires_at_cleared":true})");
  }
}

TEST(RetryTest, KeepsAFutureDeadline) {
  Job j = DeadJob();
  j.expires_at = kT0 + 1us;
  const Change c = ApplyOk(j, event::Retry{});
  EXPECT_EQ(c.after.expires_at, kT0 + 1us);
  EXPECT_EQ(c.history->details_json, R"({"source":"job_retry","budget":"reset"})");
}

TEST(RetryTest, RefusesANewDeadlineNotInTheFuture) {
  for (Instant bad : {kT0 - 1s, kT0}) {
    const auto r = ApplyAt(DeadJob(), event::Retry{"job_retry", bad, std::nullopt});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kValidation);
    EXPECT_EQ(r.status().field(), "expires_at");
  }
}

TEST(RetryTest, RunAtInTheFutureIsScheduled) {
  Job j = DeadJob();
  j.expires_at = kT0 + 2s;  // passes before the throttled run: dropped
  const Change c = ApplyOk(j, event::Retry{"dlq_retry", std::nullopt, kT0 + 5s});
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 5s);
  EXPECT_EQ(c.after.expires_at, std::nullopt);
  EXPECT_EQ(c.history->details_json,
            R"({"source":"dlq_retry","budget":"reset","expires_at_cleared":true,)"
            R"("run_at":"2026-11-29T12:00:05.000Z"})");
}

TEST(RetryTest, RunAtInThePastIsDueNow) {
  const Change c = ApplyOk(DeadJob(), event::Retry{"dlq_retry", std::nullopt, kT0 - 5s});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.scheduled_at, kT0);
  EXPECT_EQ(c.history->details_json, R"({"source":"dlq_retry","budget":"reset"})");
}

TEST(RetryTest, ARedrivenJobGetsAFullSetOfRetries) {
  const Job redriven = ApplyOk(DeadJob(), event::Retry{}).after;
  Job j = ApplyOk(redriven, event::Claim{"w", "L", 30s}).after;
  const Change c = ApplyOk(j, event::Fail{"w", "L", "again", false, std::nullopt});
  EXPECT_EQ(c.after.status, JobStatus::kScheduled);
  EXPECT_EQ(c.after.retry_count, 1);
  EXPECT_EQ(c.after.scheduled_at, kT0 + 1250ms);
  EXPECT_EQ(c.after.attempts, 5);
}

// ---------------------------------------------------------------------------
// UpdatePayload, Release, SetPriority

TEST(UpdatePayloadTest, OnlyInTheDlqOrInQuarantine) {
  const Change c = ApplyOk(DeadJob(), event::UpdatePayload{"[1,2]"});
  EXPECT_EQ(c.after.payload, "[1,2]");
  EXPECT_NE(c.after.payload, c.before.payload);
  EXPECT_EQ(c.after.result, c.before.result);
  EXPECT_EQ(c.after.status, JobStatus::kDeadletter);
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing,
                      JobStatus::kCompleted, JobStatus::kCancelled}) {
    EXPECT_EQ(ApplyAt(JobIn(s), event::UpdatePayload{"[1,2]"}).status().code(),
              ErrorCode::kConflict)
        << JobStatusName(s);
  }
}

TEST(ReleaseTest, OnlyTheHolderAndNoRetryCharged) {
  const Job j = ProcessingWithRetries(2, 3);
  EXPECT_EQ(ApplyAt(j, event::Release{"w2"}).status().code(), ErrorCode::kConflict);
  const Change c = ApplyOk(j, event::Release{"w1"});
  EXPECT_EQ(c.after.status, JobStatus::kPending);
  EXPECT_EQ(c.after.retry_count, 2);
  EXPECT_EQ(c.after.attempts, 2);
  EXPECT_EQ(c.after.last_error, std::nullopt);
  EXPECT_EQ(c.after.lease_id, std::nullopt);
  EXPECT_EQ(c.after.assigned_worker_id, std::nullopt);
  EXPECT_EQ(c.after.lease_expires_at, std::nullopt);
  EXPECT_EQ(c.before.lease_id, "lease-1");
  // Claimable again at once.
  EXPECT_TRUE(ApplyAt(c.after, event::Claim{"w2", "lease-2", 30s}).ok());
}

TEST(SetPriorityTest, ChangesOnlyThePriority) {
  for (JobStatus s : {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing,
                      JobStatus::kDeadletter}) {
    const Job j = JobIn(s);
    const Change c = ApplyOk(j, event::SetPriority{-100});
    Job want = j;
    want.priority = -100;
    want.updated_at = kT0;
    EXPECT_EQ(c.after, want) << JobStatusName(s);
    EXPECT_FALSE(c.history.has_value());
  }
}

// ---------------------------------------------------------------------------
// Whole lifecycles

struct RunLimitCase {
  int max_retries;
  bool by_lease_expiry;  // attempts end by lease loss instead of fail
};

class RunLimitTest : public ::testing::TestWithParam<RunLimitCase> {};

// A job runs at most max_retries + 1 times: drive claim → failure → promote
// until the job lands in the DLQ, counting claims.
TEST_P(RunLimitTest, JobRunsAtMostMaxRetriesPlusOneTimes) {
  const RunLimitCase tc = GetParam();
  Job j = JobIn(JobStatus::kPending);
  j.retry_count = 0;
  j.attempts = 0;
  j.max_retries = tc.max_retries;
  j.crash_limit = 0;  // lost leases count as retries only (QuarantineTest has the rest)
  Instant now = kT0;
  int runs = 0;
  while (j.status != JobStatus::kDeadletter && runs <= tc.max_retries + 5) {
    if (j.status == JobStatus::kScheduled) {
      ASSERT_GT(j.scheduled_at, now);
      now = j.scheduled_at;
      j = ApplyOk(j, event::Promote{}, now).after;
    }
    ASSERT_EQ(j.status, JobStatus::kPending);
    const std::string lease = "lease-" + std::to_string(runs);
    j = ApplyOk(j, event::Claim{"w", lease, 30s}, now).after;
    ++runs;
    ASSERT_EQ(j.attempts, runs);
    const int retries_before = j.retry_count;
    if (tc.by_lease_expiry) {
      now = *j.lease_expires_at;
      j = ApplyOk(j, event::LeaseExpiry{}, now).after;
    } else {
      now += 1s;
      j = ApplyOk(j, event::Fail{"w", lease, "boom", false, std::nullopt}, now).after;
    }
    if (j.status == JobStatus::kScheduled) {
      // Each retry waits exactly its backoff: 1 s, 2 s, 4 s … + 250 ms.
      const auto base = std::min<long long>(1000LL << retries_before, 60000);
      EXPECT_EQ(j.scheduled_at - now, milliseconds(base) + kJitter) << "run " << runs;
    }
  }
  EXPECT_EQ(runs, tc.max_retries + 1);
  EXPECT_EQ(j.attempts, tc.max_retries + 1);
  EXPECT_EQ(j.retry_count, tc.max_retries);
  EXPECT_EQ(j.status, JobStatus::kDeadletter);
  EXPECT_EQ(j.dead_reason,
            tc.by_lease_expiry ? DeadReason::kLeaseExpired : DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ(j.lease_expiries, tc.by_lease_expiry ? runs : 0);
}

INSTANTIATE_TEST_SUITE_P(MaxRetries, RunLimitTest,
                         ::testing::Values(RunLimitCase{0, false}, RunLimitCase{1, false},
                                           RunLimitCase{3, false}, RunLimitCase{10, false},
                                           RunLimitCase{0, true}, RunLimitCase{3, true}),
                         [](const ::testing::TestParamInfo<RunLimitCase>& info) {
                           return std::to_string(info.param.max_retries) +
                                  (info.param.by_lease_expiry ? "_lease_expiry" : "_fail");
                         });

TEST(LifecycleTest, DefaultsReachTheDlqAboutSevenSecondsAfterFirstFailure) {
  // Spec: with {1000, 60000, 500} a job reaches the DLQ ~7 s after its first
  // failure (1 + 2 + 4 s of backoff plus jitter). Failures are immediate here.
  Job j = JobIn(JobStatus::kPending);
  j.retry_count = 0;
  Instant now = kT0;
  std::optional<Instant> first_failure;
  for (int run = 0; j.status != JobStatus::kDeadletter && run < 10; ++run) {
    if (j.status == JobStatus::kScheduled) now = j.scheduled_at;
    if (j.status == JobStatus::kScheduled) j = ApplyOk(j, event::Promote{}, now).after;
    j = ApplyOk(j, event::Claim{"w", "L", 30s}, now).after;
    j = ApplyOk(j, event::Fail{"w", "L", "x", false, std::nullopt}, now).after;
    if (!first_failure) first_failure = now;
  }
  ASSERT_EQ(j.status, JobStatus::kDeadletter);
  EXPECT_EQ(*j.deadlettered_at - *first_failure, 7s + 3 * kJitter);
}

TEST(ApplyTest, IsPureTheInputJobIsUntouched) {
  const Job j = JobIn(JobStatus::kProcessing);
  const Job copy = j;
  const Change c = ApplyOk(j, FailBy());
  EXPECT_EQ(j, copy);
  EXPECT_EQ(c.before, copy);
  EXPECT_NE(c.after, copy);
}

}  // namespace
}  // namespace redrive
