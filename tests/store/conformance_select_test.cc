// Conformance: the selects the engine's claim and background services use.
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Job WithPriority(Job job, int priority) {
  job.priority = priority;
  return job;
}

Job WithDeadline(Job job, Instant expires_at) {
  job.expires_at = expires_at;
  return job;
}

Job WithTag(Job job, const std::string& key, const std::string& value) {
  job.tags[key] = value;
  return job;
}

TEST_P(StoreConformanceTest, ClaimableOrderIsPriorityThenOldest) {
  Insert({
      WithPriority(MakeJob("low-old", "q", T(1)), -5),
      WithPriority(MakeJob("mid-new", "q", T(30)), 0),
      WithPriority(MakeJob("mid-old", "q", T(2)), 0),
      WithPriority(MakeJob("high-new", "q", T(40)), 100),
      WithPriority(MakeJob("mid-mid", "q", T(10)), 0),
  });
  auto tx = BeginWrite();
  auto jobs = tx->SelectClaimable("q", T(100), 10);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_THAT(Ids(*jobs), ElementsAre("high-new", "mid-old", "mid-mid", "mid-new", "low-old"));
  EXPECT_EQ((*jobs)[0].payload, MakeJob("high-new").payload);  // whole jobs, with payload
  jobs = tx->SelectClaimable("q", T(100), 2);
  EXPECT_THAT(Ids(*jobs), ElementsAre("high-new", "mid-old"));
}

TEST_P(StoreConformanceTest, ClaimableExcludesOtherQueuesStatusesAndExpiredJobs) {
  Insert({
      MakeJob("ok", "q", T(1)),
      WithDeadline(MakeJob("deadline-later", "q", T(2)), T(101)),
      WithDeadline(MakeJob("deadline-now", "q", T(3)), T(100)),  // never claimed at expires_at
      WithDeadline(MakeJob("deadline-past", "q", T(4)), T(50)),
      MakeJob("other-queue", "other", T(1)),
      AsScheduled(MakeJob("scheduled", "q", T(1)), T(500)),
      AsProcessing(MakeJob("held", "q", T(1)), "w", "l", T(130)),
      AsCompleted(MakeJob("done", "q", T(1)), T(5)),
      AsDead(MakeJob("dead", "q", T(1)), DeadReason::kExpired, T(5)),
      AsCancelled(MakeJob("cancelled", "q", T(1)), T(5)),
  });
  auto tx = BeginWrite();
  auto jobs = tx->SelectClaimable("q", T(100), 100);
  ASSERT_TRUE(jobs.ok());
  EXPECT_THAT(Ids(*jobs), ElementsAre("ok", "deadline-later"));
  EXPECT_THAT(Ids(*tx->SelectClaimable("empty", T(100), 100)), IsEmpty());
}

TEST_P(StoreConformanceTest, SelectDueScheduledEarliestFirst) {
  Insert({
      AsScheduled(MakeJob("a-late", "a", T(0)), T(90)),
      AsScheduled(MakeJob("a-early", "a", T(0)), T(20)),
      AsScheduled(MakeJob("b-mid", "b", T(0)), T(50)),
      AsScheduled(MakeJob("a-future", "a", T(0)), T(101)),
      AsScheduled(MakeJob("a-at-now", "a", T(0)), T(100)),
      MakeJob("pending", "a", T(0)),
  });
  auto tx = BeginWrite();
  EXPECT_THAT(Ids(*tx->SelectDueScheduled(std::nullopt, T(100), 10)),
              ElementsAre("a-early", "b-mid", "a-late", "a-at-now"));
  EXPECT_THAT(Ids(*tx->SelectDueScheduled(std::nullopt, T(100), 2)),
              ElementsAre("a-early", "b-mid"));
  EXPECT_THAT(Ids(*tx->SelectDueScheduled(std::string("a"), T(100), 10)),
              ElementsAre("a-early", "a-late", "a-at-now"));
  EXPECT_THAT(Ids(*tx->SelectDueScheduled(std::string("b"), T(10), 10)), IsEmpty());
}

TEST_P(StoreConformanceTest, SelectExpiredLeasesEarliestFirst) {
  Insert({
      AsProcessing(MakeJob("late"), "w", "l1", T(80)),
      AsProcessing(MakeJob("early"), "w", "l2", T(10)),
      AsProcessing(MakeJob("at-now"), "w", "l3", T(100)),
      AsProcessing(MakeJob("alive"), "w", "l4", T(101)),
      MakeJob("pending"),
  });
  auto tx = BeginWrite();
  EXPECT_THAT(Ids(*tx->SelectExpiredLeases(T(100), 10)), ElementsAre("early", "late", "at-now"));
  EXPECT_THAT(Ids(*tx->SelectExpiredLeases(T(100), 1)), ElementsAre("early"));
  EXPECT_THAT(Ids(*tx->SelectExpiredLeases(T(5), 10)), IsEmpty());
}

TEST_P(StoreConformanceTest, SelectPastDeadlineCoversPendingAndScheduledOnly) {
  Insert({
      WithDeadline(MakeJob("pending-past"), T(50)),
      AsScheduled(WithDeadline(MakeJob("scheduled-past"), T(40)), T(500)),
      WithDeadline(MakeJob("pending-at-now"), T(100)),
      WithDeadline(MakeJob("pending-future"), T(101)),
      MakeJob("no-deadline"),
      AsProcessing(WithDeadline(MakeJob("running-past"), T(10)), "w", "l", T(200)),
      AsDead(WithDeadline(MakeJob("dead-past"), T(10)), DeadReason::kExpired, T(10)),
  });
  auto tx = BeginWrite();
  EXPECT_THAT(Ids(*tx->SelectPastDeadline(T(100), 10)),
              ElementsAre("scheduled-past", "pending-past", "pending-at-now"));
  EXPECT_THAT(Ids(*tx->SelectPastDeadline(T(100), 1)), ElementsAre("scheduled-past"));
}

TEST_P(StoreConformanceTest, SelectHeldByReturnsOnlyThatWorkersProcessingJobs) {
  Insert({
      AsProcessing(MakeJob("w1-a"), "w1", "l1", T(30)),
      AsProcessing(MakeJob("w1-b"), "w1", "l2", T(30)),
      AsProcessing(MakeJob("w2-a"), "w2", "l3", T(30)),
      MakeJob("pending"),
  });
  auto tx = BeginWrite();
  EXPECT_THAT(Ids(*tx->SelectHeldBy("w1", 10)), UnorderedElementsAre("w1-a", "w1-b"));
  EXPECT_EQ(tx->SelectHeldBy("w1", 1)->size(), 1u);
  EXPECT_THAT(Ids(*tx->SelectHeldBy("w3", 10)), IsEmpty());
}

// Three dead jobs in two queues, plus live jobs that must never show up.
std::vector<Job> DeadLetterJobs() {
  return {
      WithTag(AsDead(MakeJob("q1-old", "q1"), DeadReason::kMaxRetriesExceeded, T(10)), "t", "x"),
      AsDead(MakeJob("q1-new", "q1"), DeadReason::kLeaseExpired, T(30)),
      WithTag(AsDead(MakeJob("q2-mid", "q2"), DeadReason::kMaxRetriesExceeded, T(20)), "t", "y"),
      WithTag(MakeJob("q1-pending", "q1"), "t", "x"),
      AsCompleted(MakeJob("q1-done", "q1"), T(15)),
  };
}

// The ids SelectDeadLetters returns for `sel`; each job must carry its payload.
std::vector<std::string> SelectDead(WriteTx& tx, const DeadLetterSelection& sel) {
  auto jobs = tx.SelectDeadLetters(sel);
  EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
  if (!jobs.ok()) return {};
  for (const Job& j : *jobs) EXPECT_FALSE(j.payload.empty()) << "payload is included";
  return Ids(*jobs);
}

TEST_P(StoreConformanceTest, DeadLettersSelectsOldestDeadFirst) {
  Insert(DeadLetterJobs());
  auto tx = BeginWrite();
  EXPECT_THAT(SelectDead(*tx, {}), ElementsAre("q1-old", "q2-mid", "q1-new"));
  DeadLetterSelection limited;
  limited.limit = 2;
  EXPECT_THAT(SelectDead(*tx, limited), ElementsAre("q1-old", "q2-mid"));
}

TEST_P(StoreConformanceTest, DeadLettersSelectsByIdsOnlyDeadOnes) {
  Insert(DeadLetterJobs());
  auto tx = BeginWrite();
  DeadLetterSelection sel;
  sel.job_ids = {"q1-new", "q1-pending", "q1-done", "unknown", "q1-old"};
  EXPECT_THAT(SelectDead(*tx, sel), ElementsAre("q1-old", "q1-new"));
}

TEST_P(StoreConformanceTest, DeadLettersSelectsByQueueReasonTagAndAge) {
  Insert(DeadLetterJobs());
  auto tx = BeginWrite();
  DeadLetterSelection by_queue;
  by_queue.queue_name = "q1";
  EXPECT_THAT(SelectDead(*tx, by_queue), ElementsAre("q1-old", "q1-new"));
  DeadLetterSelection by_reason;
  by_reason.dead_reason = DeadReason::kMaxRetriesExceeded;
  EXPECT_THAT(SelectDead(*tx, by_reason), ElementsAre("q1-old", "q2-mid"));
  DeadLetterSelection by_tag;
  by_tag.tag = "t=y";
  EXPECT_THAT(SelectDead(*tx, by_tag), ElementsAre("q2-mid"));
  by_tag.tag = "t";
  EXPECT_THAT(SelectDead(*tx, by_tag), ElementsAre("q1-old", "q2-mid"));
  DeadLetterSelection by_age;
  by_age.dead_before = T(30);  // strictly before
  EXPECT_THAT(SelectDead(*tx, by_age), ElementsAre("q1-old", "q2-mid"));
  DeadLetterSelection combined;
  combined.queue_name = "q1";
  combined.dead_reason = DeadReason::kLeaseExpired;
  combined.dead_before = T(31);
  EXPECT_THAT(SelectDead(*tx, combined), ElementsAre("q1-new"));
}

// CountDeadLetters counts what SelectDeadLetters would select without a limit.
TEST_P(StoreConformanceTest, CountDeadLettersIgnoresTheLimit) {
  Insert(DeadLetterJobs());
  auto tx = BeginWrite();
  auto count = [&](const DeadLetterSelection& sel) {
    auto n = tx->CountDeadLetters(sel);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : -1;
  };
  DeadLetterSelection all;
  all.limit = 1;
  EXPECT_EQ(count(all), 3);
  DeadLetterSelection by_queue;
  by_queue.queue_name = "q1";
  EXPECT_EQ(count(by_queue), 2);
  DeadLetterSelection combined;
  combined.queue_name = "q1";
  combined.dead_reason = DeadReason::kLeaseExpired;
  combined.dead_before = T(31);
  EXPECT_EQ(count(combined), 1);
  DeadLetterSelection by_tag;
  by_tag.tag = "t";
  EXPECT_EQ(count(by_tag), 2);
  DeadLetterSelection by_error;
  by_error.error_prefix = "no such error";
  EXPECT_EQ(count(by_error), 0);
  DeadLetterSelection by_ids;
  by_ids.job_ids = {"q1-new", "q1-pending", "unknown", "q1-old"};
  by_ids.limit = 1;
  EXPECT_EQ(count(by_ids), 2);
}

TEST_P(StoreConformanceTest, DeadLettersListsNewestDeadFirstAsSummaries) {
  Insert(DeadLetterJobs());
  auto tx = BeginRead();
  JobFilter all;
  auto jobs = tx->ListDeadLetters(all);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_THAT(Ids(*jobs), ElementsAre("q1-new", "q2-mid", "q1-old"));
  EXPECT_EQ((*jobs)[0].payload, "");
  EXPECT_EQ((*jobs)[0].last_error, "boom");
  EXPECT_EQ((*jobs)[0].dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ((*jobs)[0].deadlettered_at, T(30));

  JobFilter f;
  f.queue_name = "q1";
  f.status = JobStatus::kPending;  // ignored: the DLQ lists dead jobs only
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("q1-new", "q1-old"));
  f = {};
  f.tag = "t=x";
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("q1-old"));
  f = {};
  f.dead_reason = DeadReason::kMaxRetriesExceeded;
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("q2-mid", "q1-old"));
  f = {};
  f.limit = 1;
  f.offset = 1;
  EXPECT_THAT(Ids(*tx->ListDeadLetters(f)), ElementsAre("q2-mid"));
}

TEST_P(StoreConformanceTest, DeadLettersOldestDeadletterAtPerQueue) {
  Insert(DeadLetterJobs());
  auto tx = BeginRead();
  EXPECT_EQ(*tx->OldestDeadletterAt("q1"), T(10));
  EXPECT_EQ(*tx->OldestDeadletterAt("q2"), T(20));
  EXPECT_EQ(*tx->OldestDeadletterAt("q3"), std::nullopt);
}

// Pending and scheduled jobs wait; processing, dead, finished and blocked
// ones do not, nor other queues' jobs.
TEST_P(StoreConformanceTest, OldestWaitingCreatedAtIsTheOldestPendingOrScheduledJob) {
  Insert({AsCompleted(MakeJob("done", "q1", T(1)), T(2)),
          AsProcessing(MakeJob("running", "q1", T(3)), "w", "l", T(100)),
          AsDead(MakeJob("dead", "q1", T(4)), DeadReason::kMaxRetriesExceeded, T(5)),
          AsScheduled(MakeJob("later", "q1", T(20)), T(500)), MakeJob("next", "q1", T(30)),
          MakeJob("other", "q2", T(6))});
  auto tx = BeginRead();
  EXPECT_EQ(*tx->OldestWaitingCreatedAt("q1"), T(20));  // the scheduled one
  EXPECT_EQ(*tx->OldestWaitingCreatedAt("q2"), T(6));
  EXPECT_EQ(*tx->OldestWaitingCreatedAt("q3"), std::nullopt);
  Insert({MakeJob("older", "q1", T(10))});
  EXPECT_EQ(*BeginRead()->OldestWaitingCreatedAt("q1"), T(10));  // a pending one
}

}  // namespace
}  // namespace redrive::store::testing
