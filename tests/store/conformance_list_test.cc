// Conformance: listings, counts, next-wake times, deletion and retention.
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Job Tagged(Job job, Tags tags) {
  job.tags = std::move(tags);
  return job;
}

std::vector<std::string> List(ReadTx& tx, const JobFilter& f, bool with_payload = false) {
  auto jobs = tx.ListJobs(f, with_payload);
  EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
  return jobs.ok() ? Ids(*jobs) : std::vector<std::string>{};
}

TEST_P(StoreConformanceTest, ListJobsNewestFirstWithFilters) {
  Insert({
      Tagged(MakeJob("a1", "a", T(1)), {{"env", "prod"}, {"team", "x"}}),
      Tagged(MakeJob("a2", "a", T(2)), {{"env", "dev"}}),
      AsCompleted(Tagged(MakeJob("a3", "a", T(3)), {{"env", "prod"}}), T(4)),
      MakeJob("b0", "b", T(2)), MakeJob("b1", "b", T(2)),  // same created_at as b0, made after it
  });
  auto tx = BeginRead();
  EXPECT_THAT(List(*tx, {}), ElementsAre("a3", "b1", "b0", "a2", "a1"));
  JobFilter f;
  f.queue_name = "a";
  EXPECT_THAT(List(*tx, f), ElementsAre("a3", "a2", "a1"));
  f.status = JobStatus::kPending;
  EXPECT_THAT(List(*tx, f), ElementsAre("a2", "a1"));
  f = {};
  f.status = JobStatus::kCompleted;
  EXPECT_THAT(List(*tx, f), ElementsAre("a3"));
  f = {};
  f.tag = "env=prod";
  EXPECT_THAT(List(*tx, f), ElementsAre("a3", "a1"));
  f.tag = "env";
  EXPECT_THAT(List(*tx, f), ElementsAre("a3", "a2", "a1"));
  f.tag = "team=y";
  EXPECT_THAT(List(*tx, f), IsEmpty());
  f.tag = "env=prod";
  f.status = JobStatus::kPending;
  f.queue_name = "a";
  EXPECT_THAT(List(*tx, f), ElementsAre("a1"));
  f = {};
  f.limit = 2;
  f.offset = 1;
  EXPECT_THAT(List(*tx, f), ElementsAre("b1", "b0"));
  f.offset = 10;
  EXPECT_THAT(List(*tx, f), IsEmpty());
}

// Jobs created in one microsecond by one request (a batch enqueue, whose
// ids ascend in the order it makes them): every listing puts them newest
// first like any others, and pages through them without skipping or
// repeating one.
TEST_P(StoreConformanceTest, ListJobsPagesThroughJobsOfOneMicrosecond) {
  Insert({MakeJob("v", "a", T(4)), MakeJob("t0", "a", T(5)), MakeJob("t1", "a", T(5)),
          MakeJob("t2", "a", T(5)), MakeJob("t3", "a", T(5)), MakeJob("t4", "a", T(5)),
          MakeJob("u", "a", T(6))});
  auto tx = BeginRead();
  JobFilter any;
  JobFilter queue;
  queue.queue_name = "a";
  JobFilter pending = queue;
  pending.status = JobStatus::kPending;
  for (JobFilter f : {any, queue, pending}) {
    EXPECT_THAT(List(*tx, f), ElementsAre("u", "t4", "t3", "t2", "t1", "t0", "v"));
    std::vector<std::string> paged;
    f.limit = 2;
    for (f.offset = 0; f.offset < 8; f.offset += 2) {
      for (std::string& id : List(*tx, f)) paged.push_back(std::move(id));
    }
    EXPECT_THAT(paged, ElementsAre("u", "t4", "t3", "t2", "t1", "t0", "v"));
  }
}

TEST_P(StoreConformanceTest, ListJobsOmitsPayloadAndResultUnlessAsked) {
  Job done = AsCompleted(Tagged(MakeJob("done"), {{"k", "v"}}), T(5));
  Insert({done});
  auto tx = BeginRead();
  auto summaries = tx->ListJobs({}, false);
  ASSERT_TRUE(summaries.ok());
  ASSERT_EQ(summaries->size(), 1u);
  Job expected = done;
  expected.payload.clear();
  expected.result.reset();
  EXPECT_EQ((*summaries)[0], expected) << DebugString((*summaries)[0]);
  auto full = tx->ListJobs({}, true);
  ASSERT_TRUE(full.ok());
  EXPECT_EQ((*full)[0], done);
}

TEST_P(StoreConformanceTest, GetJobsReturnsTheExistingOnes) {
  Insert({MakeJob("a"), MakeJob("b"), MakeJob("c")});
  auto tx = BeginRead();
  auto jobs = tx->GetJobs({"c", "missing", "a", "\"quoted\\id"});
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  EXPECT_THAT(Ids(*jobs), UnorderedElementsAre("a", "c"));
  EXPECT_EQ((*jobs)[0].payload.empty(), false);
  EXPECT_THAT(*tx->GetJobs({}), IsEmpty());
}

TEST_P(StoreConformanceTest, CountJobsByStatus) {
  Insert({
      MakeJob("a-p1", "a"),
      MakeJob("a-p2", "a"),
      AsScheduled(MakeJob("a-s", "a"), T(50)),
      AsProcessing(MakeJob("a-r", "a"), "w", "l", T(30)),
      AsCompleted(MakeJob("a-c", "a"), T(5)),
      AsDead(MakeJob("a-d", "a"), DeadReason::kExpired, T(5)),
      AsCancelled(MakeJob("b-x", "b"), T(5)),
      MakeJob("b-p", "b"),
  });
  auto tx = BeginRead();
  auto a = tx->CountJobs(std::string("a"));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->pending, 2);
  EXPECT_EQ(a->scheduled, 1);
  EXPECT_EQ(a->processing, 1);
  EXPECT_EQ(a->completed, 1);
  EXPECT_EQ(a->deadletter, 1);
  EXPECT_EQ(a->cancelled, 0);
  auto all = tx->CountJobs(std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->pending, 3);
  EXPECT_EQ(all->cancelled, 1);
  EXPECT_EQ(all->total(), 8);
  EXPECT_EQ(tx->CountJobs(std::string("none"))->total(), 0);
}

TEST_P(StoreConformanceTest, NextWakeTimes) {
  {
    auto tx = BeginRead();
    EXPECT_EQ(*tx->NextScheduledAt(), std::nullopt);
    EXPECT_EQ(*tx->NextLeaseExpiry(), std::nullopt);
    EXPECT_EQ(*tx->NextDeadline(), std::nullopt);
  }
  Job deadline_on_pending = MakeJob("p");
  deadline_on_pending.expires_at = T(70);
  Job deadline_on_scheduled = AsScheduled(MakeJob("s1"), T(40));
  deadline_on_scheduled.expires_at = T(60);
  Job deadline_on_running = AsProcessing(MakeJob("r1"), "w", "l1", T(25));
  deadline_on_running.expires_at = T(5);  // not a deadline sweep's business
  Insert({
      deadline_on_pending,
      deadline_on_scheduled,
      deadline_on_running,
      AsScheduled(MakeJob("s2"), T(20)),
      AsProcessing(MakeJob("r2"), "w", "l2", T(45)),
      AsCompleted(MakeJob("c"), T(1)),
  });
  auto tx = BeginRead();
  EXPECT_EQ(*tx->NextScheduledAt(), T(20));
  EXPECT_EQ(*tx->NextLeaseExpiry(), T(25));
  EXPECT_EQ(*tx->NextDeadline(), T(60));
}

TEST_P(StoreConformanceTest, DeleteJobsRemovesHistoryAndTags) {
  Insert({Tagged(MakeJob("a"), {{"k", "v"}}), Tagged(MakeJob("b"), {{"k", "v"}}), MakeJob("c")});
  Write([&](WriteTx& tx) {
    auto n = tx.DeleteJobs({"a", "c", "missing"});
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 2);
  });
  auto tx = BeginRead();
  EXPECT_EQ(tx->GetJob("a").status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(*tx->GetHistory("a"), IsEmpty());
  EXPECT_THAT(*tx->GetHistory("c"), IsEmpty());
  EXPECT_EQ(tx->GetHistory("b")->size(), 1u);
  JobFilter f;
  f.tag = "k=v";
  EXPECT_THAT(List(*tx, f), ElementsAre("b"));
  // A deleted job's idempotency key is free again (keys last as long as the job).
}

TEST_P(StoreConformanceTest, IdempotencyKeyIsFreedWhenTheJobIsDeleted) {
  Job first = MakeJob("first");
  first.idempotency_key = "key";
  Insert({first});
  Write([&](WriteTx& tx) { ASSERT_EQ(*tx.DeleteJobs({"first"}), 1); });
  Job second = MakeJob("second");
  second.idempotency_key = "key";
  Insert({second});  // asserts created
}

TEST_P(StoreConformanceTest, SelectRetentionExpiredOldestFirst) {
  Insert({
      AsCompleted(MakeJob("c-old", "q"), T(10)),
      AsCompleted(MakeJob("c-new", "q"), T(30)),
      AsCompleted(MakeJob("c-mid", "q"), T(20)),
      AsCompleted(MakeJob("c-at", "q"), T(40)),  // not strictly before
      AsCompleted(MakeJob("other-queue", "r"), T(1)),
      AsCancelled(MakeJob("cancelled", "q"), T(1)),
      AsDead(MakeJob("dead", "q"), DeadReason::kExpired, T(1)),
      AsDead(MakeJob("dead-late", "q"), DeadReason::kExpired, T(50)),
      [] {  // finished, with no retention of its own
        Job j = AsCompleted(MakeJob("quarantined", "q"), T(1));
        j.status = JobStatus::kQuarantined;
        j.last_error = "crashed";
        return j;
      }(),
      MakeJob("pending", "q"),
  });
  auto tx = BeginWrite();
  auto ids = tx->SelectRetentionExpired("q", JobStatus::kCompleted, T(40), 10);
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_THAT(*ids, ElementsAre("c-old", "c-mid", "c-new"));
  EXPECT_THAT(*tx->SelectRetentionExpired("q", JobStatus::kCompleted, T(40), 2),
              ElementsAre("c-old", "c-mid"));
  EXPECT_THAT(*tx->SelectRetentionExpired("q", JobStatus::kCancelled, T(40), 10),
              ElementsAre("cancelled"));
  EXPECT_THAT(*tx->SelectRetentionExpired("q", JobStatus::kDeadletter, T(40), 10),
              ElementsAre("dead"));
  EXPECT_THAT(*tx->SelectRetentionExpired("q", JobStatus::kCompleted, T(5), 10), IsEmpty());
  // Only the three statuses have a retention.
  EXPECT_EQ(tx->SelectRetentionExpired("q", JobStatus::kQuarantined, T(40), 10).status().code(),
            ErrorCode::kInternal);
}

}  // namespace
}  // namespace redrive::store::testing
