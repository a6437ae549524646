// event::Move, an operator's move of a job to another queue (a `move`
// operation): every status, what changes (the queue, nothing else), the
// history entry, and each refusal with its reason. The (status, Move) pairs
// are also rows of transition_test.cc's table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/transition_test_util.h"

namespace redrive {
namespace {

using ::testing::HasSubstr;

event::Move MoveTo(std::string target) { return event::Move{std::move(target), "ops@alice", {}}; }

class MoveAcceptedTest : public ::testing::TestWithParam<JobStatus> {};

// A waiting job keeps its status (and due time) in the target queue; a dead
// or quarantined one stays dead or quarantined there, with its error, reason
// and fingerprint, so it shows in the target queue's DLQ or quarantine.
TEST_P(MoveAcceptedTest, ChangesTheQueueOnlyAndRecordsFromWhereToWhereAndWho) {
  const Job job = JobIn(GetParam());
  const Change c = ApplyOk(job, MoveTo("emails-slow"));
  EXPECT_EQ(c.outcome, Outcome::kMoved);
  EXPECT_EQ(c.before, job);
  Job want = job;
  want.queue_name = "emails-slow";
  want.updated_at = kT0;
  EXPECT_EQ(c.after, want);
  ASSERT_TRUE(c.history.has_value());
  EXPECT_EQ(c.history->event_type, "moved");
  EXPECT_EQ(c.history->worker_id, std::nullopt);
  EXPECT_EQ(c.history->details_json,
            R"({"from_queue":"emails","to_queue":"emails-slow","by":"ops@alice"})");
  EXPECT_EQ(c.history->created_at, kT0);
}

INSTANTIATE_TEST_SUITE_P(WaitingDeadOrQuarantined, MoveAcceptedTest,
                         ::testing::Values(JobStatus::kPending, JobStatus::kScheduled,
                                           JobStatus::kDeadletter, JobStatus::kQuarantined),
                         [](const ::testing::TestParamInfo<JobStatus>& info) {
                           return std::string(JobStatusName(info.param));
                         });

TEST(MoveTest, NamesTheOperationThatMovedTheJob) {
  event::Move move = MoveTo("emails-slow");
  move.operation_id = "op-1";
  const Change c = ApplyOk(JobIn(JobStatus::kPending), move);
  ASSERT_TRUE(c.history.has_value());
  EXPECT_EQ(
      c.history->details_json,
      R"({"from_queue":"emails","to_queue":"emails-slow","by":"ops@alice","operation_id":"op-1"})");
}

TEST(MoveTest, AScheduledJobKeepsItsDueTimeAndADeadOneItsDeadLetterFields) {
  Job scheduled = JobIn(JobStatus::kScheduled);
  scheduled.scheduled_at = kT0 + 10min;
  EXPECT_EQ(ApplyOk(scheduled, MoveTo("b")).after.scheduled_at, kT0 + 10min);
  EXPECT_EQ(ApplyOk(scheduled, MoveTo("b")).after.status, JobStatus::kScheduled);

  const Job dead = DeadJob();
  const Job after = ApplyOk(dead, MoveTo("b")).after;
  EXPECT_EQ(after.status, JobStatus::kDeadletter);
  EXPECT_EQ(after.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(after.deadlettered_at, dead.deadlettered_at);
  EXPECT_EQ(after.error_fingerprint, dead.error_fingerprint);
  EXPECT_EQ(after.retry_count, dead.retry_count);
}

// A processing job's holder would complete it in a queue it was not claimed
// from; a blocked one waits for its workflow; a finished one is done.
TEST(MoveTest, RefusesEveryOtherStatusNamingIt) {
  for (JobStatus s : {JobStatus::kProcessing, JobStatus::kBlocked, JobStatus::kCompleted,
                      JobStatus::kCancelled}) {
    const Result<Change> r = ApplyAt(JobIn(s), MoveTo("emails-slow"));
    ASSERT_FALSE(r.ok()) << JobStatusName(s);
    EXPECT_EQ(r.status().code(), ErrorCode::kConflict);
    EXPECT_THAT(r.status().message(),
                HasSubstr(std::string("cannot move a job in status ") + JobStatusName(s)));
  }
}

TEST(MoveTest, RefusesTheJobsOwnQueue) {
  const Result<Change> r = ApplyAt(JobIn(JobStatus::kPending), MoveTo("emails"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kConflict);
  EXPECT_THAT(r.status().message(), HasSubstr("already in queue emails"));
}

TEST(MoveTest, RefusesATargetThatIsNoQueueName) {
  for (const char* bad : {"", "has space", "a/b"}) {
    const Result<Change> r = ApplyAt(JobIn(JobStatus::kPending), MoveTo(bad));
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), ErrorCode::kValidation) << bad;
    EXPECT_EQ(r.status().field(), "target_queue") << bad;
  }
}

TEST(MoveTest, CountsAMoveAndEmitsNoJobWebhook) {
  const OutcomeInfo& row = Describe(Outcome::kMoved);
  EXPECT_STREQ(row.history_type, "moved");
  EXPECT_STREQ(row.counts[0].event, "moved");
  EXPECT_FALSE(row.counts[0].by_dead_reason);
  EXPECT_EQ(row.counts[1].event, nullptr);
  EXPECT_EQ(row.webhooks[0].event, nullptr);
}

}  // namespace
}  // namespace redrive
