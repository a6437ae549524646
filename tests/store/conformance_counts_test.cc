// Conformance: CountJobs reads counters the store keeps beside the jobs.
// Every way a job is written, moved or deleted must keep them equal to what
// the jobs themselves say, in the writing transaction and after it, and a
// rolled-back write must leave them as they were.
#include <atomic>
#include <map>
#include <thread>

#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

// The counts of `queue` (or all queues) as the jobs themselves say: every
// job listed, one status at a time.
StatusCounts CountedByListing(ReadTx& tx, const std::optional<std::string>& queue) {
  StatusCounts counts;
  for (JobStatus status : {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing,
                           JobStatus::kCompleted, JobStatus::kDeadletter, JobStatus::kCancelled,
                           JobStatus::kQuarantined, JobStatus::kBlocked}) {
    JobFilter f;
    f.queue_name = queue;
    f.status = status;
    f.limit = 1000;
    auto jobs = tx.ListJobs(f, false);
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    if (jobs.ok()) counts.of(status) = static_cast<long long>(jobs->size());
  }
  return counts;
}

std::map<std::string, long long> AsMap(const StatusCounts& c) {
  return {{"pending", c.pending},         {"scheduled", c.scheduled},
          {"processing", c.processing},   {"completed", c.completed},
          {"deadletter", c.deadletter},   {"cancelled", c.cancelled},
          {"quarantined", c.quarantined}, {"blocked", c.blocked}};
}

// CountJobs of every queue named and of all queues equals the listing's.
void ExpectCountsMatchTheJobs(ReadTx& tx, const std::vector<std::string>& queues,
                              const std::string& when) {
  std::vector<std::optional<std::string>> scopes(queues.begin(), queues.end());
  scopes.push_back(std::nullopt);
  for (const auto& scope : scopes) {
    auto counts = tx.CountJobs(scope);
    ASSERT_TRUE(counts.ok()) << counts.status().ToString();
    EXPECT_EQ(AsMap(*counts), AsMap(CountedByListing(tx, scope)))
        << when << ", queue " << scope.value_or("(all)");
  }
}

Change ChangeOf(const Job& before, Job after, Instant at, const std::string& event) {
  Change c;
  c.before = before;
  after.updated_at = at;
  c.after = std::move(after);
  HistoryEntry h;
  h.id = HistoryId(before.id + "/" + event);
  h.job_id = before.id;
  h.event_type = event;
  h.created_at = at;
  c.history = std::move(h);
  return c;
}

// A processing job's lease dropped, as every transition out of processing does.
Job Released(Job job) {
  job.assigned_worker_id.reset();
  job.lease_id.reset();
  job.lease_expires_at.reset();
  return job;
}

TEST_P(StoreConformanceTest, CountJobsFollowsEveryWriteOfAJob) {
  const std::vector<std::string> queues = {"a", "b", "c"};
  Job a1 = MakeJob("a1", "a");
  Job a2 = MakeJob("a2", "a");
  Job a3 = AsScheduled(MakeJob("a3", "a"), T(60));
  Job b1 = MakeJob("b1", "b");
  Insert({a1, a2, a3, b1});
  Write([&](WriteTx& tx) {
    Job b2 = MakeJob("b2", "b");
    Job c1 = MakeJob("c1", "c");
    auto batch = tx.InsertJobs({NewJob{b2, CreatedEntry(b2)}, NewJob{c1, CreatedEntry(c1)}});
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  });
  ExpectCountsMatchTheJobs(*BeginRead(), queues, "after the inserts");
  EXPECT_EQ(BeginRead()->CountJobs(std::string("a"))->pending, 2);

  // Transitions, one by one and as a batch; the write sees its own changes.
  Job a1_running = AsProcessing(a1, "w", "l1", T(40));
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.ApplyChange(ChangeOf(a1, a1_running, T(1), "processing")).ok());
    auto counts = tx.CountJobs(std::string("a"));
    ASSERT_TRUE(counts.ok()) << counts.status().ToString();
    EXPECT_EQ(counts->pending, 1);
    EXPECT_EQ(counts->processing, 1);
  });
  Job a1_done = AsCompleted(Released(a1_running), T(2));
  Job a2_dead = AsDead(a2, DeadReason::kExpired, T(2));
  Job a3_cancelled = AsCancelled(a3, T(2));
  Write([&](WriteTx& tx) {
    auto applied = tx.ApplyChanges({ChangeOf(a1_running, a1_done, T(2), "completed"),
                                    ChangeOf(a2, a2_dead, T(2), "deadletter"),
                                    ChangeOf(a3, a3_cancelled, T(2), "cancelled")});
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  });
  ExpectCountsMatchTheJobs(*BeginRead(), queues, "after the transitions");

  // A change that keeps the status (a heartbeat's lease) counts nothing.
  Job b1_running = AsProcessing(b1, "w", "l2", T(40));
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.ApplyChange(ChangeOf(b1, b1_running, T(3), "processing")).ok());
    Job extended = b1_running;
    extended.lease_expires_at = T(80);
    ASSERT_TRUE(tx.ApplyChange(ChangeOf(b1_running, extended, T(4), "heartbeat")).ok());
  });
  ExpectCountsMatchTheJobs(*BeginRead(), queues, "after a lease extension");

  // A dead job moved to another queue, pending again.
  Job a2_moved = MakeJob("a2", "c");
  a2_moved.created_at = a2_dead.created_at;
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.ApplyChange(ChangeOf(a2_dead, a2_moved, T(5), "moved")).ok());
  });
  {
    auto tx = BeginRead();
    ExpectCountsMatchTheJobs(*tx, queues, "after a move");
    EXPECT_EQ(tx->CountJobs(std::string("c"))->pending, 2);
    EXPECT_EQ(tx->CountJobs(std::string("a"))->deadletter, 0);
  }

  // A rolled-back write changes nothing.
  {
    auto tx = BeginWrite();
    ASSERT_TRUE(tx->ApplyChange(ChangeOf(a1_done, MakeJob("a1", "b"), T(6), "redriven")).ok());
    Job extra = MakeJob("x1", "a");
    ASSERT_TRUE(tx->InsertJob(extra, CreatedEntry(extra)).ok());
    tx.reset();  // rolls back
  }
  ExpectCountsMatchTheJobs(*BeginRead(), queues, "after a rollback");

  // Deletion: of chosen jobs, then of a queue with its jobs.
  Write([&](WriteTx& tx) { ASSERT_EQ(*tx.DeleteJobs({"a1", "a3", "missing"}), 2); });
  ExpectCountsMatchTheJobs(*BeginRead(), queues, "after deleting jobs");
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.EnsureQueue("b", T(7), kNoQueueLimit).ok());
    ASSERT_TRUE(tx.DeleteQueue("b", true).ok());
  });
  {
    auto tx = BeginRead();
    ExpectCountsMatchTheJobs(*tx, queues, "after deleting a queue");
    EXPECT_EQ(tx->CountJobs(std::string("b"))->total(), 0);
    EXPECT_EQ(tx->CountJobs(std::nullopt)->total(), 2);  // c1 and a2, in c
  }
  // The queue comes back with new jobs, counted from zero.
  Job b3 = MakeJob("b3", "b");
  Insert({b3});
  ExpectCountsMatchTheJobs(*BeginRead(), queues, "after re-creating a queue");
}

// The counters follow a write's savepoints: what a rolled-back savepoint
// wrote is not counted, what came before it is; and a queue deleted with
// its jobs in the transaction that enqueued them counts nothing.
TEST_P(StoreConformanceTest, CountJobsFollowsSavepointsAndADeleteInTheSameWrite) {
  Write([&](WriteTx& tx) {
    Job kept = MakeJob("kept", "d");
    ASSERT_TRUE(tx.InsertJob(kept, CreatedEntry(kept)).ok());
    ASSERT_TRUE(tx.Savepoint().ok());
    Job undone = MakeJob("undone", "d");
    ASSERT_TRUE(tx.InsertJob(undone, CreatedEntry(undone)).ok());
    EXPECT_EQ(tx.CountJobs(std::string("d"))->pending, 2);
    ASSERT_TRUE(tx.RollbackToSavepoint().ok());
    EXPECT_EQ(tx.CountJobs(std::string("d"))->pending, 1);
    ASSERT_TRUE(tx.Savepoint().ok());
    Job also = MakeJob("also", "d");
    ASSERT_TRUE(tx.InsertJob(also, CreatedEntry(also)).ok());
    ASSERT_TRUE(tx.ReleaseSavepoint().ok());

    ASSERT_TRUE(tx.EnsureQueue("e", T(1), kNoQueueLimit).ok());
    Job doomed = MakeJob("doomed", "e");
    ASSERT_TRUE(tx.InsertJob(doomed, CreatedEntry(doomed)).ok());
    ASSERT_TRUE(tx.DeleteQueue("e", true).ok());
    EXPECT_EQ(tx.CountJobs(std::string("e"))->total(), 0);
  });
  auto tx = BeginRead();
  ExpectCountsMatchTheJobs(*tx, {"d", "e"}, "after savepoints and a queue's deletion");
  EXPECT_EQ(tx->CountJobs(std::string("d"))->pending, 2);
  EXPECT_EQ(tx->CountJobs(std::string("e"))->total(), 0);
}

// Writers on several connections at once (PostgreSQL: several backends, so
// several counter shards and contention on the same queue and status) leave
// exact counts.
TEST_P(StoreConformanceTest, CountJobsIsExactAfterConcurrentWriters) {
  constexpr int kWriters = 4;
  constexpr int kJobsEach = 25;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      for (int i = 0; i < kJobsEach; ++i) {
        Job job = MakeJob("w" + std::to_string(w) + "-" + std::to_string(i), "shared");
        // Insert, then complete every other job, each in its own transaction,
        // retried when the store aborts it (a lost race on PostgreSQL).
        for (int step = 0; step < (i % 2 == 0 ? 2 : 1); ++step) {
          for (int attempt = 0;; ++attempt) {
            auto tx = store_->BeginWrite();
            if (!tx.ok()) {
              ++failures;
              return;
            }
            Status st =
                step == 0
                    ? (*tx)->InsertJob(job, CreatedEntry(job)).status()
                    : (*tx)->ApplyChange(ChangeOf(job, AsCompleted(job, T(1)), T(1), "completed"));
            if (st.ok()) st = (*tx)->Commit();
            if (st.ok()) break;
            if (st.code() != ErrorCode::kAborted || attempt > 20) {
              ADD_FAILURE() << st.ToString();
              ++failures;
              return;
            }
          }
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  ASSERT_EQ(failures.load(), 0);
  auto tx = BeginRead();
  ExpectCountsMatchTheJobs(*tx, {"shared"}, "after concurrent writers");
  auto counts = tx->CountJobs(std::string("shared"));
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->pending, kWriters * (kJobsEach / 2));
  EXPECT_EQ(counts->completed, kWriters * ((kJobsEach + 1) / 2));
}

}  // namespace
}  // namespace redrive::store::testing
