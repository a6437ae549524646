#include "core/operation.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(OperationTest, NamesRoundTripAndUnknownOnesAreRefused) {
  for (auto a : {OperationAction::kRetry, OperationAction::kPurge, OperationAction::kCancel,
                 OperationAction::kRelease, OperationAction::kMove}) {
    EXPECT_EQ(ParseOperationAction(OperationActionName(a)), a);
  }
  EXPECT_FALSE(ParseOperationAction("teleport").has_value());
  for (auto s : {OperationState::kQueued, OperationState::kRunning, OperationState::kCompleted,
                 OperationState::kCancelled, OperationState::kFailed}) {
    EXPECT_EQ(ParseOperationState(OperationStateName(s)), s);
    EXPECT_EQ(IsFinished(s), s != OperationState::kQueued && s != OperationState::kRunning);
  }
  EXPECT_EQ(OperationActionNames(), "retry, purge, cancel, release, move");
  EXPECT_EQ(ParseStatusList(StatusListText(ActionStatuses(OperationAction::kCancel))),
            ActionStatuses(OperationAction::kCancel));
  EXPECT_EQ(ActionStatuses(OperationAction::kRelease),
            std::vector<JobStatus>{JobStatus::kQuarantined});
  // A move never takes a processing job (its holder would complete it in the
  // wrong queue) nor a blocked one.
  EXPECT_EQ(ActionStatuses(OperationAction::kMove),
            (std::vector<JobStatus>{JobStatus::kPending, JobStatus::kScheduled,
                                    JobStatus::kDeadletter, JobStatus::kQuarantined}));
}

TEST(OperationTest, TheEtaComesFromTheRateOrTheMeasuredSpeed) {
  const Instant t0 = InstantFromMicros(1'800'000'000'000'000);
  Operation op;
  op.state = OperationState::kRunning;
  op.matched = 1000;
  op.done = 200;
  op.failed = 50;
  op.started_at = t0;
  EXPECT_EQ(OperationRemaining(op), 750);
  // 250 handled in 10 s: 750 more take 30 s.
  EXPECT_EQ(EstimatedFinish(op, t0 + std::chrono::seconds(10)), t0 + std::chrono::seconds(40));
  op.rate_per_second = 75;  // a rate wins: 750 / 75 = 10 s
  EXPECT_EQ(EstimatedFinish(op, t0), t0 + std::chrono::seconds(10));
  op.rate_per_second.reset();
  op.done = op.failed = 0;
  EXPECT_FALSE(EstimatedFinish(op, t0).has_value());  // nothing measured yet
  op.state = OperationState::kCompleted;
  EXPECT_FALSE(EstimatedFinish(op, t0).has_value());
}

}  // namespace
}  // namespace redrive
