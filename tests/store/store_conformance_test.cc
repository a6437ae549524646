// Registers the stores the conformance suite runs against, and holds its
// tests of inserting and changing jobs. Other groups of tests:
// conformance_select_test.cc (claim, sweeps, DLQ), conformance_list_test.cc
// (listings, counts, deletion), conformance_registry_test.cc (queues,
// workers, transactions).
#include "store_conformance.h"

#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <stdexcept>

#include "core/ids.h"
#include "core/ids_test_util.h"
#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_store.h"
#include "store/sqlite/sqlite_store.h"
#include "support/pg_cluster.h"

namespace redrive::store::testing {
namespace {

// One temporary directory per test process, removed at exit.
class TempDirEnvironment : public ::testing::Environment {
 public:
  static std::filesystem::path NewDatabasePath() {
    static std::atomic<int> counter{0};
    return dir() / ("store-" + std::to_string(counter++) + ".db");
  }
  void TearDown() override { std::filesystem::remove_all(dir()); }

 private:
  static const std::filesystem::path& dir() {
    static const std::filesystem::path kDir = [] {
      std::string pattern =
          (std::filesystem::temp_directory_path() / "redrive-conformance-XXXXXX").string();
      if (mkdtemp(pattern.data()) == nullptr) std::abort();
      return std::filesystem::path(pattern);
    }();
    return kDir;
  }
};
const auto* const kTempDir = ::testing::AddGlobalTestEnvironment(new TempDirEnvironment);

std::unique_ptr<Store> MakeSqliteStore() {
  auto store = SqliteStore::Open(TempDirEnvironment::NewDatabasePath().string());
  if (!store.ok()) {
    ADD_FAILURE() << store.status().ToString();
    return nullptr;
  }
  Status st = (*store)->Migrate();
  if (!st.ok()) {
    ADD_FAILURE() << st.ToString();
    return nullptr;
  }
  return std::move(*store);
}

// The conformance database on the test cluster of this process (both made
// on first use). Each test drops and recreates the schema `redrive` in it:
// far cheaper than a database per test (CREATE DATABASE copies and flushes
// a template; the shutdown checkpoint would write every copy again).
std::unique_ptr<Store> MakePgStore() {
  static const std::string url = [] {
    ::redrive::testing::PgCluster& cluster = ::redrive::testing::PgCluster::Shared();
    auto db = cluster.CreateUniqueDatabase("conformance");
    if (!db.ok()) throw std::runtime_error(db.status().ToString());
    return cluster.Url(*db);
  }();
  auto conn = postgres::PgConnection::Connect(url, {});
  Status st =
      conn.ok() ? (*conn)->Exec("DROP SCHEMA IF EXISTS redrive CASCADE").status() : conn.status();
  if (!st.ok()) {
    ADD_FAILURE() << st.ToString();
    return nullptr;
  }
  PgOptions options;
  options.pool_size = 4;
  auto store = PgStore::Open(url, options);
  if (!store.ok()) {
    ADD_FAILURE() << store.status().ToString();
    return nullptr;
  }
  st = (*store)->Migrate();
  if (!st.ok()) {
    ADD_FAILURE() << st.ToString();
    return nullptr;
  }
  return std::move(*store);
}

}  // namespace

// Every store runs the whole suite: add a line here for a new one.
INSTANTIATE_TEST_SUITE_P(Stores, StoreConformanceTest,
                         ::testing::Values(StoreFactory{"sqlite", MakeSqliteStore},
                                           StoreFactory{"postgres", MakePgStore}),
                         [](const auto& info) { return info.param.name; });

namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// A job with every optional field set, in a status where they may be set.
Job FullDeadJob() {
  Job job = MakeJob("job-full", "billing", T(10));
  job.priority = -42;
  job.retry_count = 5;
  job.attempts = 6;
  job.lease_expiries = 2;
  job.crash_count = 2;
  job.crash_limit = 5;
  job.snooze_count = 3;
  job.max_snoozes = 40;
  job.tags = {{"tenant", "acme"}, {"quote\"d", "line\nbreak\\ \u00e9 \U0001F600"}};
  job.idempotency_key = "order-17";
  job.completion_webhook = "https://app.example.com/hooks/done?order=17";
  job.expires_at = T(99999);
  job.started_at = T(40);
  job.result = R"({"partial":[1,2]})";
  job = AsDead(std::move(job), DeadReason::kLeaseExpired, T(50));
  job.last_error = "timed out\nafter 120 s";
  return job;
}

TEST_P(StoreConformanceTest, InsertThenGetReturnsEveryField) {
  Job dead = FullDeadJob();
  Job held = AsProcessing(MakeJob("job-held", "emails", T(5)), "worker-1", "lease-1", T(35));
  Insert({dead, held});
  Job got = Get(dead.id);
  EXPECT_EQ(got, dead) << DebugString(got) << "\n" << DebugString(dead);
  got = Get(held.id);
  EXPECT_EQ(got, held) << DebugString(got) << "\n" << DebugString(held);
}

TEST_P(StoreConformanceTest, GetUnknownJobIsNotFound) {
  auto tx = BeginRead();
  auto job = tx->GetJob("nope");
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), ErrorCode::kNotFound);
}

TEST_P(StoreConformanceTest, IdempotencyKeyReturnsExistingJob) {
  Job first = MakeJob("job-1");
  first.idempotency_key = "k1";
  Insert({first});
  Job again = MakeJob("job-2");
  again.idempotency_key = "k1";
  Job other = MakeJob("job-3");
  other.idempotency_key = "k2";
  Write([&](WriteTx& tx) {
    auto out = tx.InsertJob(again, CreatedEntry(again));
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(out->id, "job-1");
    EXPECT_FALSE(out->created);
    out = tx.InsertJob(other, CreatedEntry(other));
    ASSERT_TRUE(out.ok());
    EXPECT_TRUE(out->created);
    // Within the same transaction too.
    Job third = MakeJob("job-4");
    third.idempotency_key = "k2";
    out = tx.InsertJob(third, CreatedEntry(third));
    ASSERT_TRUE(out.ok());
    EXPECT_EQ(out->id, "job-3");
    EXPECT_FALSE(out->created);
  });
  auto tx = BeginRead();
  EXPECT_EQ(tx->GetJob("job-2").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(tx->GetHistory("job-1")->size(), 1u);  // no second "created" entry
  EXPECT_EQ(tx->CountJobs(std::nullopt)->total(), 2);
}

TEST_P(StoreConformanceTest, FindIdempotencyKeyNamesTheHolder) {
  Job first = MakeJob("job-1");
  first.idempotency_key = "order-7";
  Insert({first});
  auto tx = BeginRead();
  auto found = tx->FindIdempotencyKey("order-7");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, std::optional<std::string>("job-1"));
  EXPECT_EQ(*tx->FindIdempotencyKey("order-8"), std::nullopt);
}

// A batch inserts each job as InsertJob would, in order: a taken key gives
// its holder, also when the holder is an earlier job of the same batch.
TEST_P(StoreConformanceTest, InsertJobsInsertsABatchJobByJob) {
  Job held = MakeJob("held");
  held.idempotency_key = "taken";
  Insert({held});
  std::vector<NewJob> batch;
  auto add = [&](const std::string& id, std::optional<std::string> key) {
    Job j = MakeJob(id);
    j.idempotency_key = std::move(key);
    batch.push_back(NewJob{j, CreatedEntry(j)});
  };
  add("b0", std::nullopt);
  add("b1", "taken");  // an earlier transaction's
  add("b2", "fresh");
  add("b3", "fresh");  // b2's, in this batch
  add("b4", std::nullopt);
  Write([&](WriteTx& tx) {
    auto out = tx.InsertJobs(batch);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(out->size(), 5u);
    std::vector<std::pair<std::string, bool>> got;
    for (const InsertOutcome& o : *out) got.emplace_back(o.id, o.created);
    EXPECT_THAT(got, ElementsAre(std::pair<std::string, bool>("b0", true),
                                 std::pair<std::string, bool>("held", false),
                                 std::pair<std::string, bool>("b2", true),
                                 std::pair<std::string, bool>("b2", false),
                                 std::pair<std::string, bool>("b4", true)));
    auto none = tx.InsertJobs({});
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
  });
  auto tx = BeginRead();
  EXPECT_EQ(tx->CountJobs(std::nullopt)->total(), 4);  // held, b0, b2, b4
  EXPECT_EQ(tx->GetJob("b3").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(tx->GetHistory("b2")->size(), 1u);
  EXPECT_EQ(Get("b4"), batch[4].job);
}

TEST_P(StoreConformanceTest, FindIdempotencyKeysNamesTheHoldersOfThoseTaken) {
  Job a = MakeJob("job-a");
  a.idempotency_key = "ka";
  Job b = MakeJob("job-b");
  b.idempotency_key = "kb";
  Insert({a, b, MakeJob("job-c")});
  auto tx = BeginRead();
  auto found = tx->FindIdempotencyKeys({"kb", "missing", "ka", "ka"});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, (std::map<std::string, std::string>{{"ka", "job-a"}, {"kb", "job-b"}}));
  EXPECT_TRUE(tx->FindIdempotencyKeys({})->empty());
}

// A claim's reads are what the four calls read: the queue, the workers (one
// claim's, or several taken together; those that exist), the due scheduled
// jobs of the queue and its claimable ones (locked as the selects lock
// them). A missing queue reads nothing else.
TEST_P(StoreConformanceTest, ReadForClaimReadsWhatTheFourCallsRead) {
  Job first = MakeJob("p1", "emails", T(1));
  Job urgent = MakeJob("p2", "emails", T(2));
  urgent.priority = 5;
  Job due = AsScheduled(MakeJob("s1", "emails", T(0)), T(5));
  Job later = AsScheduled(MakeJob("s2", "emails", T(0)), T(50));
  Job elsewhere = MakeJob("o1", "other", T(0));
  Insert({first, urgent, due, later, elsewhere});
  WorkerInfo w;
  w.id = "w1";
  w.queue_name = "emails";
  w.hostname = "h";
  WorkerInfo gone = w;
  gone.id = "w2";
  gone.deregistered_at = T(3);
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.EnsureQueue("emails", T(0), kNoQueueLimit).ok());
    ASSERT_TRUE(tx.PutWorker(w).ok());
    ASSERT_TRUE(tx.PutWorker(gone).ok());
  });
  const std::vector<std::string> w1{"w1"}, nobody{"nobody"}, several{"w2", "nobody", "w1"};
  Write([&](WriteTx& tx) {
    auto r = tx.ReadForClaim("emails", w1, T(10), 10);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->queue.has_value());
    EXPECT_EQ(r->queue->queue_name, "emails");
    ASSERT_EQ(r->workers.size(), 1u);
    EXPECT_EQ(r->workers[0].id, "w1");
    EXPECT_THAT(Ids(r->due), ElementsAre("s1"));
    EXPECT_THAT(Ids(r->claimable), ElementsAre("p2", "p1"));
    auto limited = tx.ReadForClaim("emails", nobody, T(10), 1);
    ASSERT_TRUE(limited.ok());
    EXPECT_THAT(limited->workers, IsEmpty());
    EXPECT_EQ(limited->claimable.size(), 1u);
    auto missing = tx.ReadForClaim("no-such-queue", w1, T(10), 10);
    ASSERT_TRUE(missing.ok());
    EXPECT_FALSE(missing->queue.has_value());
    EXPECT_THAT(Ids(missing->claimable), IsEmpty());
  });
  Write([&](WriteTx& tx) {
    auto r = tx.ReadForClaim("emails", several, T(10), 10);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> found;
    for (const WorkerInfo& info : r->workers) found.push_back(info.id);
    EXPECT_THAT(found, UnorderedElementsAre("w1", "w2"));
    for (const WorkerInfo& info : r->workers) {
      EXPECT_EQ(info.deregistered_at.has_value(), info.id == "w2");
    }
    EXPECT_THAT(Ids(r->claimable), ElementsAre("p2", "p1"));
  });
}

TEST_P(StoreConformanceTest, JobsWithoutIdempotencyKeyNeverCollide) {
  Insert({MakeJob("a"), MakeJob("b")});
  EXPECT_EQ(BeginRead()->CountJobs(std::nullopt)->total(), 2);
}

// A claim: pending -> processing, guarded by status pending and no lease.
Change ClaimChange(const Job& job, const std::string& worker, const std::string& lease,
                   Instant now) {
  Change c;
  c.before = job;
  c.after = AsProcessing(job, worker, lease, now + std::chrono::seconds(30));
  c.after.updated_at = now;
  c.history = HistoryEntry{HistoryId(job.id + "/processing/" + lease), job.id, "processing", worker,
                           R"({"lease_id":")" + lease + "\"}",         now};
  return c;
}

Change CompleteChange(const Job& held, Instant now) {
  Change c;
  c.before = held;
  c.after = held;
  c.after.status = JobStatus::kCompleted;
  c.after.assigned_worker_id.reset();
  c.after.lease_id.reset();
  c.after.lease_expires_at.reset();
  c.after.completed_at = now;
  c.after.updated_at = now;
  c.after.result = R"({"sent":true})";
  c.history = HistoryEntry{HistoryId(held.id + "/completed"), held.id, "completed",
                           held.assigned_worker_id,           "{}",    now};
  return c;
}

TEST_P(StoreConformanceTest, ApplyChangeWritesWhenGuardHolds) {
  Job job = MakeJob("job-1");
  Insert({job});
  Change claim = ClaimChange(job, "w1", "lease-a", T(1));
  Write([&](WriteTx& tx) {
    Status st = tx.ApplyChange(claim);
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  Job got = Get(job.id);
  EXPECT_EQ(got, claim.after) << DebugString(got);

  Change complete = CompleteChange(got, T(2));
  Write([&](WriteTx& tx) { EXPECT_TRUE(tx.ApplyChange(complete).ok()); });
  got = Get(job.id);
  EXPECT_EQ(got, complete.after) << DebugString(got);
  auto history = BeginRead()->GetHistory(job.id);
  ASSERT_TRUE(history.ok());
  std::vector<std::string> events;
  for (const HistoryEntry& h : *history) events.push_back(h.event_type);
  EXPECT_THAT(events, ElementsAre("created", "processing", "completed"));
  EXPECT_EQ((*history)[1].worker_id, "w1");
  EXPECT_EQ((*history)[1].details_json, R"({"lease_id":"lease-a"})");
}

// A batch writes each change as ApplyChange would, in order: applied where
// the guard holds, skipped (false, nothing written, history included) where
// it does not — also when an earlier change of the same batch moved the row.
TEST_P(StoreConformanceTest, ApplyChangesWritesABatchChangeByChange) {
  std::vector<Job> jobs;
  for (int i = 0; i < 5; ++i) jobs.push_back(MakeJob("batch-" + std::to_string(i)));
  Insert(jobs);
  std::vector<Change> changes;
  for (int i = 0; i < 4; ++i) {
    changes.push_back(ClaimChange(jobs[i], "w1", "lease-" + std::to_string(i), T(1)));
  }
  changes.push_back(ClaimChange(MakeJob("ghost"), "w1", "lease-ghost", T(1)));
  // jobs[0] again, from the same stale read: its guard fails after change 0.
  changes.push_back(ClaimChange(jobs[0], "w2", "lease-again", T(1)));
  Write([&](WriteTx& tx) {
    auto applied = tx.ApplyChanges(changes);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    EXPECT_THAT(*applied, ElementsAre(true, true, true, true, false, false));
  });
  for (int i = 0; i < 4; ++i) EXPECT_EQ(Get(jobs[i].id), changes[i].after);
  EXPECT_EQ(Get(jobs[4].id), jobs[4]);
  auto history = BeginRead()->GetHistory(jobs[0].id);
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 2u);  // created, and only the first claim
  EXPECT_EQ((*history)[1].details_json, R"({"lease_id":"lease-0"})");
  Write([&](WriteTx& tx) {
    auto none = tx.ApplyChanges({});
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
  });
}

// A few rows and many (PostgreSQL reads and writes fewer than eight a
// statement each, more as one statement over arrays): a locking read of the
// jobs, a duplicate and a missing id among them, then their completions
// judged against what was read, and the claims of others whose guards it did
// not read. The same results either way.
TEST_P(StoreConformanceTest, ReadsAndWritesOfAFewRowsAndOfManyAgree) {
  for (int n : {3, 12}) {
    SCOPED_TRACE(n);
    const std::string prefix = "rows-" + std::to_string(n) + "-";
    std::vector<Job> jobs;
    for (int i = 0; i < 2 * n; ++i) jobs.push_back(MakeJob(prefix + std::to_string(i)));
    Insert(jobs);
    std::vector<Change> claims;
    for (int i = 0; i < n; ++i) {
      claims.push_back(ClaimChange(jobs[i], "w1", "lease-" + std::to_string(i), T(1)));
    }
    Write([&](WriteTx& tx) { ASSERT_TRUE(tx.ApplyChanges(claims).ok()); });
    Write([&](WriteTx& tx) {
      std::vector<std::string> ids;
      for (int i = n - 1; i >= 0; --i) ids.push_back(jobs[i].id);
      ids.push_back(prefix + "missing");
      ids.push_back(jobs[0].id);  // twice
      auto read = tx.GetJobs(ids);
      ASSERT_TRUE(read.ok()) << read.status().ToString();
      ASSERT_EQ(read->size(), static_cast<size_t>(n));
      std::vector<Change> done;
      for (const Job& held : *read) done.push_back(CompleteChange(held, T(2)));
      auto applied = tx.ApplyChanges(done);
      ASSERT_TRUE(applied.ok()) << applied.status().ToString();
      EXPECT_EQ(*applied, std::vector<bool>(n, true));
      // Claims of the other jobs, unread; one from a stale read of a job
      // this transaction just completed.
      std::vector<Change> more;
      for (int i = n; i < 2 * n; ++i) {
        more.push_back(ClaimChange(jobs[i], "w2", "lease-b" + std::to_string(i), T(2)));
      }
      more.push_back(ClaimChange(jobs[0], "w2", "lease-stale", T(2)));
      auto claimed = tx.ApplyChanges(more);
      ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
      std::vector<bool> want(n, true);
      want.push_back(false);
      EXPECT_EQ(*claimed, want);
    });
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(Get(jobs[i].id).status, JobStatus::kCompleted);
      auto history = BeginRead()->GetHistory(jobs[i].id);
      ASSERT_TRUE(history.ok());
      EXPECT_EQ(history->size(), 3u);  // created, processing, completed
    }
    for (int i = n; i < 2 * n; ++i) {
      EXPECT_EQ(Get(jobs[i].id).assigned_worker_id, "w2");
      EXPECT_EQ(BeginRead()->GetHistory(jobs[i].id)->size(), 2u);
    }
  }
}

// Changes of several kinds in one batch, each job once (a claim batch with
// acks): every guard is judged on its own row, and history is written
// exactly for the changes applied.
TEST_P(StoreConformanceTest, ApplyChangesJudgesEachGuardInABatchOfSeveralKinds) {
  std::vector<Job> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back(MakeJob("mixed-" + std::to_string(i)));
  Insert(jobs);
  std::vector<Change> claims;
  for (int i = 0; i < 3; ++i)
    claims.push_back(ClaimChange(jobs[i], "w1", "lease-" + std::to_string(i), T(1)));
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.ApplyChanges(claims).ok()); });
  std::vector<Change> changes;
  changes.push_back(CompleteChange(claims[0].after, T(2)));  // held: applies
  Change stale = CompleteChange(claims[1].after, T(2));
  stale.before.lease_id = "lease-someone-else";  // a stale holder: refused
  changes.push_back(stale);
  changes.push_back(ClaimChange(jobs[3], "w2", "lease-3", T(2)));   // pending: applies
  changes.push_back(ClaimChange(jobs[2], "w2", "lease-2b", T(2)));  // already held: refused
  Change quiet = ClaimChange(jobs[4], "w2", "lease-4", T(2));
  quiet.history.reset();  // no history entry: applies
  changes.push_back(quiet);
  changes.push_back(ClaimChange(MakeJob("mixed-ghost"), "w2", "lease-ghost", T(2)));
  Write([&](WriteTx& tx) {
    auto applied = tx.ApplyChanges(changes);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    EXPECT_THAT(*applied, ElementsAre(true, false, true, false, true, false));
  });
  EXPECT_EQ(Get(jobs[0].id), changes[0].after);
  EXPECT_EQ(Get(jobs[1].id), claims[1].after);
  EXPECT_EQ(Get(jobs[2].id), claims[2].after);
  EXPECT_EQ(Get(jobs[3].id), changes[2].after);
  EXPECT_EQ(Get(jobs[4].id), changes[4].after);
  EXPECT_EQ(Get(jobs[5].id), jobs[5]);
  auto events = [&](const std::string& id) {
    std::vector<std::string> out;
    auto history = BeginRead()->GetHistory(id);
    if (!history.ok()) return out;
    for (const HistoryEntry& h : *history) out.push_back(h.event_type);
    return out;
  };
  EXPECT_THAT(events(jobs[0].id), ElementsAre("created", "processing", "completed"));
  EXPECT_THAT(events(jobs[1].id), ElementsAre("created", "processing"));
  EXPECT_THAT(events(jobs[2].id), ElementsAre("created", "processing"));
  EXPECT_THAT(events(jobs[3].id), ElementsAre("created", "processing"));
  EXPECT_THAT(events(jobs[4].id), ElementsAre("created"));
}

TEST_P(StoreConformanceTest, ApplyChangeRefusesStaleGuards) {
  Job job = MakeJob("job-1");
  Insert({job});
  Change claim = ClaimChange(job, "w1", "lease-a", T(1));
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.ApplyChange(claim).ok()); });

  // A second claim computed from the same stale read: status no longer pending.
  Change stale_claim = ClaimChange(job, "w2", "lease-b", T(1));
  // A completion presenting a lease the job does not hold.
  Job wrong_lease = claim.after;
  wrong_lease.lease_id = "lease-other";
  Change foreign_complete = CompleteChange(wrong_lease, T(2));
  Write([&](WriteTx& tx) {
    Status st = tx.ApplyChange(stale_claim);
    EXPECT_EQ(st.code(), ErrorCode::kConflict) << st.ToString();
    st = tx.ApplyChange(foreign_complete);
    EXPECT_EQ(st.code(), ErrorCode::kConflict) << st.ToString();
    Change unknown = ClaimChange(MakeJob("ghost"), "w1", "l", T(1));
    EXPECT_EQ(tx.ApplyChange(unknown).code(), ErrorCode::kConflict);
  });
  EXPECT_EQ(Get(job.id), claim.after);
  EXPECT_EQ(BeginRead()->GetHistory(job.id)->size(), 2u);  // created, processing: nothing else
}

// Payload and result are written only when before and after differ: a
// change that carries the same (here: not the stored) values on both sides
// leaves the stored ones alone.
TEST_P(StoreConformanceTest, ApplyChangeWritesPayloadAndResultOnlyWhenChanged) {
  Job job = MakeJob("job-1");
  Insert({job});
  Change claim = ClaimChange(job, "w1", "lease-a", T(1));
  claim.before.payload = claim.after.payload = "\"not written\"";
  claim.before.result = claim.after.result = "\"not written either\"";
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.ApplyChange(claim).ok()); });
  Job got = Get(job.id);
  EXPECT_EQ(got.payload, job.payload);
  EXPECT_EQ(got.result, std::nullopt);

  // Repair of a dead job's payload (UpdatePayload) writes it.
  Job dead = AsDead(MakeJob("job-2"), DeadReason::kNonRetryable, T(3));
  Insert({dead});
  Change repair;
  repair.before = dead;
  repair.after = dead;
  repair.after.payload = R"({"fixed":true})";
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.ApplyChange(repair).ok()); });
  EXPECT_EQ(Get(dead.id).payload, R"({"fixed":true})");
}

// A redrive into another queue (target_queue) moves the job: it is listed,
// counted and claimed in its new queue only.
TEST_P(StoreConformanceTest, ApplyChangeMovesAJobToAnotherQueue) {
  Job dead = AsDead(MakeJob("job-1", "payments", T(1)), DeadReason::kMaxRetriesExceeded, T(2));
  Insert({dead});
  Change redrive;
  redrive.before = dead;
  redrive.after = dead;
  redrive.after.status = JobStatus::kPending;
  redrive.after.dead_reason = DeadReason::kNone;
  redrive.after.deadlettered_at.reset();
  redrive.after.completed_at.reset();
  redrive.after.last_error.reset();
  redrive.after.queue_name = "payments-slow";
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.EnsureQueue("payments-slow", T(3), kNoQueueLimit).ok());
    ASSERT_TRUE(tx.ApplyChange(redrive).ok());
  });
  EXPECT_EQ(Get(dead.id).queue_name, "payments-slow");
  JobFilter old_queue;
  old_queue.queue_name = "payments";
  EXPECT_THAT(*BeginRead()->ListJobs(old_queue, false), IsEmpty());
  JobFilter new_queue;
  new_queue.queue_name = "payments-slow";
  auto listed = BeginRead()->ListJobs(new_queue, false);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, dead.id);
  Write([&](WriteTx& tx) {
    auto none = tx.SelectClaimable("payments", T(4), 10);
    ASSERT_TRUE(none.ok()) << none.status().ToString();
    EXPECT_THAT(*none, IsEmpty());
    auto one = tx.SelectClaimable("payments-slow", T(4), 10);
    ASSERT_TRUE(one.ok()) << one.status().ToString();
    ASSERT_EQ(one->size(), 1u);
    EXPECT_EQ((*one)[0].id, dead.id);
  });
}

// An entry's id is a UUID that is the same at every read: PostgreSQL keeps
// the one core made, SQLite derives one from the entry's place (store.h).
TEST_P(StoreConformanceTest, InsertWritesCreatedHistoryWithAStableId) {
  Job job = MakeJob("job-1");
  Insert({job});
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.ApplyChange(ClaimChange(job, "w1", "lease-a", T(1))).ok());
  });
  auto tx = BeginRead();
  auto history = tx->GetHistory(job.id);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ(*tx->GetHistory(job.id), *history);
  EXPECT_TRUE(IsUuid((*history)[1].id)) << (*history)[1].id;
  EXPECT_NE((*history)[0].id, (*history)[1].id);
  const HistoryEntry& h = (*history)[0];
  EXPECT_TRUE(IsUuid(h.id)) << h.id;
  EXPECT_EQ(h.job_id, job.id);
  EXPECT_EQ(h.event_type, "created");
  EXPECT_EQ(h.worker_id, std::nullopt);
  EXPECT_EQ(h.details_json, R"({"queue_name":"emails"})");
  EXPECT_EQ(h.created_at, job.created_at);
}

// History ids are core's to assign: whether a store keeps or derives them,
// it has no fallback, so an entry without one is a bug it refuses (nothing
// written).
TEST_P(StoreConformanceTest, HistoryEntriesWithoutAnIdAreRefused) {
  Job job = MakeJob("job-1");
  HistoryEntry unnamed = CreatedEntry(job);
  unnamed.id.clear();
  {
    auto tx = BeginWrite();
    ASSERT_NE(tx, nullptr);
    auto out = tx->InsertJob(job, unnamed);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), ErrorCode::kInternal) << out.status().ToString();
  }  // rolled back
  Insert({job});
  Change claim = ClaimChange(job, "w1", "lease-a", T(1));
  claim.history->id.clear();
  {
    auto tx = BeginWrite();
    ASSERT_NE(tx, nullptr);
    Status st = tx->ApplyChange(claim);
    EXPECT_EQ(st.code(), ErrorCode::kInternal) << st.ToString();
  }  // rolled back
  EXPECT_EQ(Get(job.id).status, JobStatus::kPending);
  EXPECT_EQ(BeginRead()->GetHistory(job.id)->size(), 1u);
}

TEST_P(StoreConformanceTest, ApplyChangeWithoutHistoryWritesNone) {
  Job job = AsScheduled(MakeJob("job-1"), T(60));
  Insert({job});
  Change promote;
  promote.before = job;
  promote.after = job;
  promote.after.status = JobStatus::kPending;
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.ApplyChange(promote).ok()); });
  EXPECT_EQ(Get(job.id).status, JobStatus::kPending);
  EXPECT_EQ(BeginRead()->GetHistory(job.id)->size(), 1u);
}

TEST_P(StoreConformanceTest, RollbackToSavepointUndoesChangeAndHistory) {
  Job a = MakeJob("job-a");
  Job b = MakeJob("job-b");
  Insert({a, b});
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.Savepoint().ok());
    ASSERT_TRUE(tx.ApplyChange(ClaimChange(a, "w1", "lease-a", T(1))).ok());
    ASSERT_TRUE(tx.ReleaseSavepoint().ok());

    ASSERT_TRUE(tx.Savepoint().ok());
    ASSERT_TRUE(tx.ApplyChange(ClaimChange(b, "w1", "lease-b", T(1))).ok());
    Job c = MakeJob("job-c");
    ASSERT_TRUE(tx.InsertJob(c, CreatedEntry(c)).ok());
    EXPECT_EQ(tx.GetJob("job-b")->status, JobStatus::kProcessing);  // own writes visible
    ASSERT_TRUE(tx.RollbackToSavepoint().ok());
    EXPECT_EQ(tx.GetJob("job-b")->status, JobStatus::kPending);

    // The transaction goes on after a rollback.
    ASSERT_TRUE(tx.Savepoint().ok());
    Job d = MakeJob("job-d");
    ASSERT_TRUE(tx.InsertJob(d, CreatedEntry(d)).ok());
    ASSERT_TRUE(tx.ReleaseSavepoint().ok());
  });
  auto tx = BeginRead();
  EXPECT_EQ(tx->GetJob("job-a")->status, JobStatus::kProcessing);
  EXPECT_EQ(tx->GetHistory("job-a")->size(), 2u);
  EXPECT_EQ(tx->GetJob("job-b")->status, JobStatus::kPending);
  EXPECT_EQ(tx->GetHistory("job-b")->size(), 1u);
  EXPECT_EQ(tx->GetJob("job-c").status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(*tx->GetHistory("job-c"), IsEmpty());
  EXPECT_TRUE(tx->GetJob("job-d").ok());
}

TEST_P(StoreConformanceTest, DroppedWriteTxRollsBack) {
  {
    auto tx = BeginWrite();
    Job job = MakeJob("job-1");
    ASSERT_TRUE(tx->InsertJob(job, CreatedEntry(job)).ok());
    ASSERT_TRUE(tx->EnsureQueue("emails", T(0), kNoQueueLimit).ok());
  }  // no Commit
  auto tx = BeginRead();
  EXPECT_EQ(tx->GetJob("job-1").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(*tx->GetQueue("emails"), std::nullopt);
}

TEST_P(StoreConformanceTest, CommitTwiceIsAnError) {
  auto tx = BeginWrite();
  ASSERT_TRUE(tx->Commit().ok());
  EXPECT_FALSE(tx->Commit().ok());
}

}  // namespace
}  // namespace redrive::store::testing
