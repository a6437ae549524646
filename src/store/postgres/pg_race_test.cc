// The locking contract of store.h under real concurrency: two transactions
// on two connections racing for one key, one queue, one job. Each test makes
// the second transaction wait (seen in pg_stat_activity) before the first
// goes on, so the race happens every run, not by luck.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <thread>
#include <vector>

#include "store/postgres/pg_database_for_test.h"
#include "store/postgres/pg_schema.h"

namespace redrive::store::postgres {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Instant At(int64_t seconds) {
  return InstantFromMicros(1'800'000'000'000'000 + seconds * 1'000'000);
}

Job NewJob(const std::string& id, const std::string& queue = "q", Instant created = At(0)) {
  Job job;
  job.id = id;
  job.queue_name = queue;
  job.payload = R"({"n":1})";
  job.created_at = created;
  job.updated_at = created;
  job.scheduled_at = created;
  return job;
}

Job Processing(Job job, Instant lease_expires) {
  job.status = JobStatus::kProcessing;
  job.assigned_worker_id = "w";
  job.lease_id = "lease-" + job.id;
  job.lease_expires_at = lease_expires;
  job.started_at = job.created_at;
  job.attempts = 1;
  return job;
}

HistoryEntry Created(const Job& job) {
  HistoryEntry h;
  h.id = "h-" + job.id;
  h.job_id = job.id;
  h.event_type = "created";
  h.created_at = job.created_at;
  return h;
}

std::vector<std::string> IdsOf(const Result<std::vector<Job>>& jobs) {
  std::vector<std::string> ids;
  if (jobs.ok()) {
    for (const Job& j : *jobs) ids.push_back(j.id);
  }
  return ids;
}

class PgRaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = FreshDatabaseUrl();
    store_ = OpenStore(url_);
    ASSERT_NE(store_, nullptr);
    watcher_ = Connect(url_);
  }

  std::unique_ptr<WriteTx> Begin() {
    auto tx = store_->BeginWrite();
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    return tx.ok() ? std::move(*tx) : nullptr;
  }

  void Insert(const std::vector<Job>& jobs) {
    auto tx = Begin();
    for (const Job& j : jobs) ASSERT_TRUE(tx->InsertJob(j, Created(j)).ok());
    ASSERT_TRUE(tx->Commit().ok());
  }

  std::string url_;
  std::unique_ptr<PgStore> store_;
  std::unique_ptr<PgConnection> watcher_;
};

TEST_F(PgRaceTest, TwoInsertsOfOneIdempotencyKeyGiveOneJob) {
  Job first = NewJob("first");
  first.idempotency_key = "order-1";
  Job second = NewJob("second");
  second.idempotency_key = "order-1";

  auto a = Begin();
  auto inserted = a->InsertJob(first, Created(first));
  ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
  EXPECT_TRUE(inserted->created);
  // The second insert waits for the first transaction's uncommitted key...
  auto racer = std::async(std::launch::async, [&]() -> Result<InsertOutcome> {
    auto b = Begin();
    auto out = b->InsertJob(second, Created(second));
    if (!out.ok()) return out;
    REDRIVE_RETURN_IF_ERROR(b->Commit());
    return out;
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  ASSERT_TRUE(a->Commit().ok());
  // ... and then resolves to it: no error, no second job.
  Result<InsertOutcome> out = racer.get();
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_FALSE(out->created);
  EXPECT_EQ(out->id, "first");
  auto read = store_->BeginRead();
  EXPECT_EQ((*read)->CountJobs(std::nullopt)->total(), 1);
  EXPECT_EQ((*read)->GetJob("second").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ((*read)->GetHistory("first")->size(), 1u);
}

TEST_F(PgRaceTest, AKeyWhoseHolderRollsBackGoesToTheWaiter) {
  Job first = NewJob("first");
  first.idempotency_key = "order-1";
  Job second = NewJob("second");
  second.idempotency_key = "order-1";
  auto a = Begin();
  ASSERT_TRUE(a->InsertJob(first, Created(first)).ok());
  auto racer = std::async(std::launch::async, [&]() -> Result<InsertOutcome> {
    auto b = Begin();
    auto out = b->InsertJob(second, Created(second));
    if (!out.ok()) return out;
    REDRIVE_RETURN_IF_ERROR(b->Commit());
    return out;
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  a.reset();  // rolled back
  Result<InsertOutcome> out = racer.get();
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->created);
  EXPECT_EQ(out->id, "second");
}

TEST_F(PgRaceTest, TwoEnsureQueueOfOneNameGiveOneQueue) {
  auto a = Begin();
  auto created = a->EnsureQueue("emails", At(1), kNoQueueLimit);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  auto racer = std::async(std::launch::async, [&]() -> Result<QueueConfig> {
    auto b = Begin();
    auto q = b->EnsureQueue("emails", At(2), kNoQueueLimit);
    if (!q.ok()) return q;
    REDRIVE_RETURN_IF_ERROR(b->Commit());
    return q;
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  ASSERT_TRUE(a->Commit().ok());
  Result<QueueConfig> q = racer.get();
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(*q, *created);  // the first one's, created at At(1)
  EXPECT_EQ((*store_->BeginRead())->ListQueues()->size(), 1u);
}

// Two nodes creating different queues at once, with room for one more: the
// second waits for the first's creation to commit and then sees it counted.
TEST_F(PgRaceTest, TwoCreationsAtTheQueueLimitGiveOneQueue) {
  auto a = Begin();
  ASSERT_TRUE(a->EnsureQueue("first", At(1), 1).ok());
  auto racer = std::async(std::launch::async, [&]() -> Result<QueueConfig> {
    auto b = Begin();
    auto q = b->EnsureQueue("second", At(2), 1);
    if (!q.ok()) return q;
    REDRIVE_RETURN_IF_ERROR(b->Commit());
    return q;
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  ASSERT_TRUE(a->Commit().ok());
  Result<QueueConfig> q = racer.get();
  EXPECT_EQ(q.status().code(), ErrorCode::kConflict) << q.status().ToString();
  EXPECT_EQ((*store_->BeginRead())->ListQueues()->size(), 1u);
}

// Two nodes creating webhooks at once, with room for one more: the second
// waits for the first's creation to commit and then sees it counted.
TEST_F(PgRaceTest, TwoWebhookCreationsAtTheLimitGiveOneWebhook) {
  auto webhook = [](const std::string& id) {
    Webhook w;
    w.id = id;
    w.name = id;
    w.url = "https://example.com/" + id;
    w.events = {"job.failed"};
    w.secret = "whsec_" + id;
    return w;
  };
  auto a = Begin();
  ASSERT_TRUE(a->InsertWebhook(webhook("first"), 1).ok());
  auto racer = std::async(std::launch::async, [&]() -> Status {
    auto b = Begin();
    REDRIVE_RETURN_IF_ERROR(b->InsertWebhook(webhook("second"), 1));
    return b->Commit();
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  ASSERT_TRUE(a->Commit().ok());
  Status second = racer.get();
  EXPECT_EQ(second.code(), ErrorCode::kConflict) << second.ToString();
  EXPECT_EQ((*store_->BeginRead())->ListWebhooks()->size(), 1u);
}

TEST_F(PgRaceTest, ClaimsOfTwoTransactionsSkipEachOthersRows) {
  Insert({NewJob("j1", "q", At(1)), NewJob("j2", "q", At(2)), NewJob("j3", "q", At(3)),
          NewJob("j4", "q", At(4))});
  auto a = Begin();
  auto b = Begin();
  auto first = a->SelectClaimable("q", At(10), 2);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // b neither waits for a's rows nor gets them.
  auto second = b->SelectClaimable("q", At(10), 10);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_THAT(IdsOf(first), ElementsAre("j1", "j2"));
  EXPECT_THAT(IdsOf(second), ElementsAre("j3", "j4"));
  a.reset();
  EXPECT_THAT(IdsOf(b->SelectClaimable("q", At(10), 10)), ElementsAre("j1", "j2", "j3", "j4"));
}

TEST_F(PgRaceTest, AReaperSkipsAJobAnotherTransactionHolds) {
  Insert({Processing(NewJob("held"), At(5)), Processing(NewJob("free"), At(6))});
  auto heartbeat = Begin();
  ASSERT_TRUE(heartbeat->GetJob("held").ok());  // locked FOR UPDATE
  auto reaper = Begin();
  EXPECT_THAT(IdsOf(reaper->SelectExpiredLeases(At(10), 10)), ElementsAre("free"));
  reaper.reset();

  // The heartbeat extends the lease and commits: the next sweep leaves it.
  Job held = *heartbeat->GetJob("held");
  Change extend;
  extend.before = held;
  extend.after = held;
  extend.after.lease_expires_at = At(100);
  ASSERT_TRUE(heartbeat->ApplyChange(extend).ok());
  ASSERT_TRUE(heartbeat->Commit().ok());
  auto later = Begin();
  EXPECT_THAT(IdsOf(later->SelectExpiredLeases(At(10), 10)), ElementsAre("free"));
}

TEST_F(PgRaceTest, ARowLockingReadWaitsAndSeesTheOtherWrite) {
  {
    auto tx = Begin();
    ASSERT_TRUE(tx->EnsureQueue("q", At(0), kNoQueueLimit).ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  auto pause = Begin();
  auto q = pause->LockQueue("q");
  ASSERT_TRUE(q.ok() && q->has_value());
  auto other = std::async(std::launch::async, [&]() -> Result<std::optional<QueueConfig>> {
    auto b = Begin();
    return b->LockQueue("q");
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  QueueConfig paused = **q;
  paused.paused = true;
  ASSERT_TRUE(pause->PutQueue(paused).ok());
  ASSERT_TRUE(pause->Commit().ok());
  auto seen = other.get();
  ASSERT_TRUE(seen.ok()) << seen.status().ToString();
  EXPECT_TRUE((*seen)->paused);  // read after the pause, not before it
}

TEST_F(PgRaceTest, ADeadlockIsAbortedNotAnInternalError) {
  Insert({NewJob("a"), NewJob("b")});
  auto one = Begin();
  auto two = Begin();
  ASSERT_TRUE(one->GetJob("a").ok());
  ASSERT_TRUE(two->GetJob("b").ok());
  auto blocked = std::async(std::launch::async, [&] { return one->GetJob("b").status(); });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  Status second = two->GetJob("a").status();  // closes the cycle
  // A failed transaction keeps its locks until it ends: end it, so the
  // other one goes on.
  if (!second.ok()) two.reset();
  Status first = blocked.get();
  // One of the two loses (the deadlock detector picks), and it is ABORTED:
  // the write executor runs it again.
  EXPECT_NE(first.ok(), second.ok()) << first.ToString() << " / " << second.ToString();
  const Status& lost = first.ok() ? second : first;
  EXPECT_EQ(lost.code(), ErrorCode::kAborted) << lost.ToString();
}

TEST_F(PgRaceTest, GetJobsLocksInIdOrder) {
  Insert({NewJob("a"), NewJob("b"), NewJob("c")});
  auto one = Begin();
  auto got = one->GetJobs({"c", "a", "b"});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_THAT(IdsOf(got), ElementsAre("a", "b", "c"));
  // Locked: a claim skips all three.
  auto two = Begin();
  EXPECT_THAT(IdsOf(two->SelectClaimable("q", At(10), 10)), IsEmpty());
}

TEST_F(PgRaceTest, AReadTxIsOneSnapshot) {
  Insert({NewJob("before")});
  auto read = store_->BeginRead();
  ASSERT_TRUE(read.ok());
  EXPECT_EQ((*read)->CountJobs(std::nullopt)->total(), 1);  // the snapshot starts here
  Insert({NewJob("after")});
  EXPECT_EQ((*read)->CountJobs(std::nullopt)->total(), 1);
  EXPECT_EQ((*read)->GetJob("after").status().code(), ErrorCode::kNotFound);
  read->reset();
  EXPECT_EQ((*store_->BeginRead())->CountJobs(std::nullopt)->total(), 2);
}

// Two transactions complete the two dependencies of one blocked job at once:
// the second waits for the first's lock on the dependent and then reads the
// first's completion, so exactly one of them sees the job ready (store.h,
// SelectBlockedDependents) and the job is never left blocked.
TEST_F(PgRaceTest, TheSecondCompletionOfTwoDependenciesSeesTheFirst) {
  Job b = Processing(NewJob("dep-b"), At(100));
  Job c = Processing(NewJob("dep-c"), At(100));
  Job d = NewJob("dependent-d");
  d.status = JobStatus::kBlocked;
  Insert({b, c, d});
  {
    auto tx = Begin();
    ASSERT_TRUE(tx->InsertDependencies(
                      {{d.id, b.id, DependencyMode::kAll}, {d.id, c.id, DependencyMode::kAll}})
                    .ok());
    ASSERT_TRUE(tx->Commit().ok());
  }
  auto complete = [](const Job& job) {
    FixedRandom random(3);
    return Apply(job, event::Complete{"w", job.lease_id, "{}"}, At(5), random).value();
  };
  auto first = Begin();
  ASSERT_TRUE(first->ApplyChange(complete(b)).ok());
  ASSERT_EQ(*first->MarkDependencyMet(b.id), 1);
  auto of_b = first->SelectBlockedDependents(b.id);
  ASSERT_TRUE(of_b.ok()) << of_b.status().ToString();
  ASSERT_EQ(of_b->size(), 1u);
  EXPECT_FALSE((*of_b)[0].all_met);
  auto second = std::async(std::launch::async, [&]() -> Result<std::vector<BlockedDependent>> {
    auto tx = Begin();
    REDRIVE_RETURN_IF_ERROR(tx->ApplyChange(complete(c)));
    REDRIVE_RETURN_IF_ERROR(tx->MarkDependencyMet(c.id).status());
    return tx->SelectBlockedDependents(c.id);
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  ASSERT_TRUE(first->Commit().ok());
  auto of_c = second.get();
  ASSERT_TRUE(of_c.ok()) << of_c.status().ToString();
  ASSERT_EQ(of_c->size(), 1u);
  EXPECT_TRUE((*of_c)[0].all_met);  // the first's mark, committed while it waited
}

// A completion that read its job (finding nothing waiting for it) marks no
// edge without asking again. An edge another transaction adds meanwhile must
// lock the job first: it waits for the completion's commit and then reads the
// job completed, so the edge is met at insert and its dependent is never left
// waiting for a job that will not complete again.
TEST_F(PgRaceTest, AnEdgeAddedWhileACompletionHoldsItsJobIsMetAtInsert) {
  Job x = Processing(NewJob("dep-x"), At(100));
  Job y = NewJob("dependent-y");
  y.status = JobStatus::kBlocked;
  Insert({x, y});
  auto completion = Begin();
  ASSERT_TRUE(completion->GetJob(x.id).ok());
  FixedRandom random(3);
  ASSERT_TRUE(
      completion
          ->ApplyChange(Apply(x, event::Complete{"w", x.lease_id, "{}"}, At(5), random).value())
          .ok());
  auto edge = std::async(std::launch::async, [&]() -> Status {
    auto tx = Begin();
    REDRIVE_RETURN_IF_ERROR(tx->GetJob(x.id).status());  // the caller locks what it depends on
    REDRIVE_RETURN_IF_ERROR(tx->InsertDependencies({{y.id, x.id, DependencyMode::kAll}}).status());
    return tx->Commit();
  });
  ASSERT_TRUE(WaitForLockWaiters(*watcher_));
  EXPECT_EQ(*completion->MarkDependencyMet(x.id), 0);
  ASSERT_TRUE(completion->Commit().ok());
  ASSERT_TRUE(edge.get().ok());
  auto state = (*store_->BeginRead())->GetDependencyState(y.id);
  ASSERT_TRUE(state.ok() && state->has_value()) << state.status().ToString();
  EXPECT_THAT((*state)->statuses, ::testing::ElementsAre(JobStatus::kCompleted));
  auto tx = Begin();
  auto awaiting = tx->SelectBlockedDependents(x.id);
  ASSERT_TRUE(awaiting.ok());
  ASSERT_EQ(awaiting->size(), 1u);
  EXPECT_TRUE((*awaiting)[0].all_met);
}

TEST(PgMigrateTest, ThreeStoresMigratingAtOnceApplyEachMigrationOnce) {
  const std::string url = FreshDatabaseUrl();
  std::vector<std::unique_ptr<PgStore>> stores;
  for (int i = 0; i < 3; ++i) {
    stores.push_back(OpenStore(url, /*migrate=*/false));
    ASSERT_NE(stores.back(), nullptr);
  }
  std::vector<std::future<Status>> runs;
  for (auto& store : stores) {
    runs.push_back(std::async(std::launch::async, [&store] { return store->Migrate(); }));
  }
  for (auto& run : runs) {
    Status st = run.get();
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  auto conn = Connect(url);
  EXPECT_EQ(Scalar(*conn, "SELECT count(*) FROM redrive.schema_migrations"),
            std::to_string(PgMigrations().size()));
  EXPECT_EQ(Scalar(*conn, "SELECT count(DISTINCT version) FROM redrive.schema_migrations"),
            std::to_string(PgMigrations().size()));
  for (auto& store : stores) EXPECT_TRUE(store->Migrate().ok());  // and again: nothing to do
  EXPECT_EQ(Scalar(*conn, "SELECT count(*) FROM redrive.schema_migrations"),
            std::to_string(PgMigrations().size()));
}

TEST(PgMigrateTest, TheApplicationsOwnTablesStayApart) {
  const std::string url = FreshDatabaseUrl();
  auto conn = Connect(url);
  ASSERT_TRUE(conn->Exec("CREATE TABLE public.jobs (id int)").ok());
  auto store = OpenStore(url);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Scalar(*conn,
                   "SELECT string_agg(table_schema, ',' ORDER BY table_schema) FROM"
                   " information_schema.tables WHERE table_name = 'jobs'"),
            "public,redrive");
}

TEST(PgMigrateTest, ANewerSchemaIsRefused) {
  const std::string url = FreshDatabaseUrl();
  auto store = OpenStore(url);
  ASSERT_NE(store, nullptr);
  auto conn = Connect(url);
  ASSERT_TRUE(
      conn->Exec("INSERT INTO redrive.schema_migrations (version, applied_at) VALUES (999, 0)")
          .ok());
  Status st = store->Migrate();
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.ToString();
}

}  // namespace
}  // namespace redrive::store::postgres
