// The Worker's batched acks without a server: which outcomes an ack carries,
// what the queue hands to one request, and what each ack's answer counts as.
#include "sdk/ack_queue.h"

#include <gtest/gtest.h>

namespace redrive::sdk {
namespace {

using std::chrono::milliseconds;

std::shared_ptr<HeldJob> Held(const std::string& id, int retry_count = 0, int max_retries = 3) {
  auto held = std::make_shared<HeldJob>();
  held->job.id = id;
  held->job.lease_id = "lease-" + id;
  held->job.retry_count = retry_count;
  held->job.max_retries = max_retries;
  held->state = HeldState::kRunning;
  return held;
}

PendingAck Pending(std::shared_ptr<HeldJob> held, Ack ack) {
  const size_t bytes = AckBytes(ack);
  return {std::move(held), std::move(ack), bytes};
}

AckResult Answer(const std::string& id, JobStatus status) {
  return {.id = id, .success = true, .status = status};
}

// A failure ack's answer: what the server's fail route would answer.
AckResult FailureAnswer(const std::string& id, JobStatus status, int retry_count,
                        std::optional<Instant> scheduled_at, DeadReason dead_reason) {
  return {.id = id,
          .success = true,
          .status = status,
          .will_retry = status != JobStatus::kDeadletter,
          .retry_count = retry_count,
          .scheduled_at = scheduled_at,
          .dead_reason = dead_reason};
}

TEST(AckOfTest, CompletionsAndFailuresTravelAsAcks) {
  auto held = Held("j1");
  auto done = AckOf(held->job, HandlerResult::Success({{"ok", 1}}));
  ASSERT_TRUE(done);
  EXPECT_EQ(done->id, "j1");
  EXPECT_EQ(done->lease_id, "lease-j1");
  EXPECT_EQ(done->result, (boost::json::value{{"ok", 1}}));
  EXPECT_FALSE(done->error);

  auto retry = AckOf(held->job, HandlerResult::RetryableFailure("busy", milliseconds(250)));
  ASSERT_TRUE(retry);
  EXPECT_EQ(retry->error, "busy");
  EXPECT_FALSE(retry->no_retry);
  EXPECT_EQ(retry->retry_after, milliseconds(250));

  auto fatal = AckOf(held->job, HandlerResult::NonRetryableFailure("bad input"));
  ASSERT_TRUE(fatal);
  EXPECT_TRUE(fatal->no_retry);
}

TEST(AckOfTest, SnoozesKeepTheirOwnCall) {
  auto held = Held("j1");
  EXPECT_FALSE(AckOf(held->job, HandlerResult::Snooze(milliseconds(100))));
}

TEST(AckOfTest, AFailuresDetailsTravelInItsAck) {
  auto held = Held("j1");
  auto ack =
      AckOf(held->job, HandlerResult::RetryableFailure("exit 1").WithDetails({{"exit_code", 1}}));
  ASSERT_TRUE(ack);
  EXPECT_EQ(ack->error, "exit 1");
  EXPECT_EQ(ack->details, (boost::json::object{{"exit_code", 1}}));
  // Their bytes count toward the request's budget.
  EXPECT_GT(AckBytes(*ack), AckBytes(Ack::Fail("j1", "lease-j1", "exit 1")));
}

TEST(AckOfTest, ResultOfAckGivesBackTheOutcome) {
  auto held = Held("j1");
  for (const HandlerResult& result :
       {HandlerResult::Success({{"n", 2}}), HandlerResult::RetryableFailure("x", milliseconds(7)),
        HandlerResult::NonRetryableFailure("y"),
        HandlerResult::NonRetryableFailure("z").WithDetails({{"exit_code", 9}})}) {
    HandlerResult back = ResultOfAck(*AckOf(held->job, result));
    EXPECT_EQ(back.kind(), result.kind());
    EXPECT_EQ(back.result(), result.result());
    EXPECT_EQ(back.error(), result.error());
    EXPECT_EQ(back.retry_after(), result.retry_after());
    EXPECT_EQ(back.details(), result.details());
  }
}

TEST(AckQueueTest, TakeHandsOverInOrderAndMarksThemAcking) {
  AckQueue queue;
  auto a = Held("a"), b = Held("b");
  queue.Push(Pending(a, Ack::Complete("a", "lease-a")));
  queue.Push(Pending(b, Ack::Fail("b", "lease-b", "boom")));
  EXPECT_EQ(a->state, HeldState::kReported);
  EXPECT_EQ(queue.size(), 2u);
  AckQueue::Batch batch = queue.Take();
  ASSERT_EQ(batch.acks.size(), 2u);
  EXPECT_EQ(batch.acks[0].ack.id, "a");
  EXPECT_EQ(batch.acks[1].ack.id, "b");
  EXPECT_EQ(a->state, HeldState::kAcking);
  EXPECT_EQ(b->state, HeldState::kAcking);
  EXPECT_TRUE(batch.dropped.empty());
  EXPECT_TRUE(queue.empty());
}

// The heartbeater found the lease lost while the outcome waited: the outcome
// is not sent (the server would refuse it, or worse, it would land on the
// job's next attempt if the lease were reused), and is counted as dropped.
TEST(AckQueueTest, AnOutcomeWhoseLeaseWasLostWhileQueuedIsDroppedNotSent) {
  AckQueue queue;
  auto kept = Held("kept"), lost = Held("lost");
  queue.Push(Pending(lost, Ack::Complete("lost", "lease-lost")));
  queue.Push(Pending(kept, Ack::Complete("kept", "lease-kept")));
  lost->lost = true;
  AckQueue::Batch batch = queue.Take();
  ASSERT_EQ(batch.acks.size(), 1u);
  EXPECT_EQ(batch.acks[0].ack.id, "kept");
  ASSERT_EQ(batch.dropped.size(), 1u);
  EXPECT_EQ(batch.dropped[0], lost);
  EXPECT_EQ(lost->state, HeldState::kReported);  // never on its way
}

TEST(AckQueueTest, TakeIsBoundedByCountAndBytesButTakesAtLeastOne) {
  AckQueue queue;
  for (int i = 0; i < 5; ++i) {
    std::string id = "j" + std::to_string(i);
    queue.Push(Pending(Held(id), Ack::Complete(id, "l")));
  }
  EXPECT_EQ(queue.Take(2).acks.size(), 2u);  // j0, j1
  EXPECT_EQ(queue.size(), 3u);
  const size_t small = AckBytes(Ack::Complete("j2", "l"));
  EXPECT_EQ(queue.Take(1000, small + small / 2).acks.size(), 1u);  // j2: a second would pass

  queue.Push(
      Pending(Held("big"), Ack::Complete("big", "l", boost::json::string(std::string(5000, 'x')))));
  AckQueue::Batch before = queue.Take(1000, 1000);
  ASSERT_EQ(before.acks.size(), 2u);  // j3, j4; "big" would pass the 1000 bytes
  EXPECT_EQ(before.acks[1].ack.id, "j4");
  AckQueue::Batch alone = queue.Take(1000, 1000);
  ASSERT_EQ(alone.acks.size(), 1u);  // too big for any budget: sent alone
  EXPECT_EQ(alone.acks[0].ack.id, "big");
  EXPECT_GT(alone.acks[0].bytes, 5000u);
}

TEST(EffectOfTest, ACompletionAcceptedOrRefused) {
  auto held = Held("j");
  PendingAck done = Pending(held, Ack::Complete("j", "l"));
  EXPECT_EQ(EffectOf(done, Answer("j", JobStatus::kCompleted)).kind, AckEffect::Kind::kCompleted);
  AckResult refused{.id = "j", .success = false, .error = Status::LeaseExpired("gone")};
  AckEffect effect = EffectOf(done, refused);
  EXPECT_EQ(effect.kind, AckEffect::Kind::kDropped);
  EXPECT_TRUE(effect.error.ok());  // a refused complete is only counted, as before
}

TEST(EffectOfTest, ARefusedFailureIsDroppedAndReported) {
  PendingAck failed = Pending(Held("j"), Ack::Fail("j", "l", "boom"));
  AckResult refused{.id = "j", .success = false, .error = Status::Conflict("cancelled")};
  AckEffect effect = EffectOf(failed, refused);
  EXPECT_EQ(effect.kind, AckEffect::Kind::kDropped);
  EXPECT_EQ(effect.error.code(), ErrorCode::kConflict);
}

TEST(EffectOfTest, AFailureThatWillRetry) {
  const Instant due = InstantFromMicros(1'800'000'002'000'000);
  PendingAck failed = Pending(Held("j", 1, 3), Ack::Fail("j", "l", "boom"));
  AckEffect effect =
      EffectOf(failed, FailureAnswer("j", JobStatus::kScheduled, 2, due, DeadReason::kNone));
  ASSERT_EQ(effect.kind, AckEffect::Kind::kFailed);
  EXPECT_TRUE(effect.failure->will_retry);
  EXPECT_EQ(effect.failure->status, JobStatus::kScheduled);
  EXPECT_EQ(effect.failure->retry_count, 2);
  EXPECT_EQ(effect.failure->scheduled_at, due);
  EXPECT_EQ(effect.failure->dead_reason, DeadReason::kNone);
}

// The failure is the server's answer, not the worker's guess from the job as
// claimed: here the claim said 0 of 3 retries used, and the server (whose
// job changed meanwhile, or whose rule is another) says otherwise.
TEST(EffectOfTest, AFailureThatDeadLettersSaysWhyAsTheServerAnswered) {
  for (DeadReason reason :
       {DeadReason::kNonRetryable, DeadReason::kMaxRetriesExceeded, DeadReason::kExpired}) {
    PendingAck failed = Pending(Held("j", 0, 3), Ack::Fail("j", "l", "boom"));
    AckEffect effect =
        EffectOf(failed, FailureAnswer("j", JobStatus::kDeadletter, 3, std::nullopt, reason));
    ASSERT_EQ(effect.kind, AckEffect::Kind::kFailed);
    EXPECT_FALSE(effect.failure->will_retry);
    EXPECT_EQ(effect.failure->status, JobStatus::kDeadletter);
    EXPECT_EQ(effect.failure->retry_count, 3);
    EXPECT_FALSE(effect.failure->scheduled_at);
    EXPECT_EQ(effect.failure->dead_reason, reason);
  }
}

}  // namespace
}  // namespace redrive::sdk
