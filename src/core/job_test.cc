#include "core/job.h"

#include <gtest/gtest.h>

#include "core/status.h"

namespace redrive {
namespace {

TEST(JobStatusTest, NamesRoundTrip) {
  const char* const kNames[] = {"pending",    "scheduled", "processing",  "completed",
                                "deadletter", "cancelled", "quarantined", "blocked"};
  static_assert(std::size(kNames) == std::size(kAllStatuses));
  int i = 0;
  for (JobStatus s : kAllStatuses) {
    EXPECT_STREQ(JobStatusName(s), kNames[i++]);
    EXPECT_EQ(ParseJobStatus(JobStatusName(s)), s);
  }
  EXPECT_EQ(ParseJobStatus("Pending"), std::nullopt);
  EXPECT_EQ(ParseJobStatus("dead_letter"), std::nullopt);
  EXPECT_EQ(ParseJobStatus(""), std::nullopt);
}

TEST(JobStatusTest, TerminalStatuses) {
  EXPECT_FALSE(IsTerminal(JobStatus::kPending));
  EXPECT_FALSE(IsTerminal(JobStatus::kScheduled));
  EXPECT_FALSE(IsTerminal(JobStatus::kProcessing));
  EXPECT_TRUE(IsTerminal(JobStatus::kCompleted));
  EXPECT_TRUE(IsTerminal(JobStatus::kDeadletter));
  EXPECT_TRUE(IsTerminal(JobStatus::kCancelled));
  EXPECT_TRUE(IsTerminal(JobStatus::kQuarantined));
  EXPECT_FALSE(IsTerminal(JobStatus::kBlocked));  // waits for its dependencies
}

TEST(DeadReasonTest, NamesRoundTrip) {
  EXPECT_STREQ(DeadReasonName(DeadReason::kNone), "");
  EXPECT_STREQ(DeadReasonName(DeadReason::kMaxRetriesExceeded), "max_retries_exceeded");
  EXPECT_STREQ(DeadReasonName(DeadReason::kLeaseExpired), "lease_expired");
  EXPECT_STREQ(DeadReasonName(DeadReason::kNonRetryable), "non_retryable");
  EXPECT_STREQ(DeadReasonName(DeadReason::kExpired), "expired");
  for (DeadReason r : {DeadReason::kMaxRetriesExceeded, DeadReason::kLeaseExpired,
                       DeadReason::kNonRetryable, DeadReason::kExpired}) {
    EXPECT_EQ(ParseDeadReason(DeadReasonName(r)), r);
  }
  EXPECT_EQ(ParseDeadReason(""), std::nullopt);
  EXPECT_EQ(ParseDeadReason("timeout"), std::nullopt);
}

// The lists error messages quote, built from the enums.
TEST(NameListTest, EveryStatusAndEveryDeadReasonInOrder) {
  EXPECT_EQ(JobStatusNames(),
            "pending, scheduled, processing, completed, deadletter, cancelled, quarantined, "
            "blocked");
  EXPECT_EQ(DeadReasonNames(), "max_retries_exceeded, lease_expired, non_retryable, expired");
  for (DeadReason r : kAllDeadReasons) EXPECT_NE(r, DeadReason::kNone);
}

TEST(JobTest, DefaultsFollowTheContract) {
  const Job j;
  EXPECT_EQ(j.status, JobStatus::kPending);
  EXPECT_EQ(j.retry_count, 0);
  EXPECT_EQ(j.max_retries, 3);
  EXPECT_EQ(j.timeout_seconds, 300);
  EXPECT_EQ(j.backoff.base, std::chrono::milliseconds(1000));
  EXPECT_EQ(j.backoff.max, std::chrono::milliseconds(60000));
  EXPECT_EQ(j.backoff.jitter, std::chrono::milliseconds(500));
  EXPECT_EQ(j.attempts, 0);
  EXPECT_EQ(j.lease_expiries, 0);
}

TEST(StatusTest, CodesHaveTheContractsWireNames) {
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kValidation), "VALIDATION_ERROR");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kConflict), "CONFLICT");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kLeaseExpired), "LEASE_EXPIRED");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kInternal), "INTERNAL_ERROR");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kUnavailable), "SERVICE_UNAVAILABLE");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kBadRequest), "BAD_REQUEST");
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kNotFound), "NOT_FOUND");
}

TEST(StatusTest, ValidationNamesTheField) {
  const Status s = Status::Validation("expires_at", "must be in the future");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kValidation);
  EXPECT_EQ(s.field(), "expires_at");
  EXPECT_EQ(s.ToString(), "VALIDATION_ERROR: must be in the future (field expires_at)");
  EXPECT_EQ(Status::Ok().ToString(), "OK");
}

TEST(ResultTest, HoldsAValueOrAnError) {
  Result<std::string> good = std::string("seven");
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, "seven");
  EXPECT_TRUE(good.status().ok());
  Result<std::string> bad = Status::Conflict("nope");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(bad.status().message(), "nope");
}

}  // namespace
}  // namespace redrive
