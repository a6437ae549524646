// Deferred writes: a guarded write of a job the transaction holds locked is
// sent with the next statement or the COMMIT (one round trip fewer), and a
// deferred command that fails keeps the COMMIT it rides with from running.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/transition.h"
#include "store/postgres/pg_database_for_test.h"

namespace redrive::store::postgres {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

Instant At(int64_t seconds) {
  return InstantFromMicros(1'800'000'000'000'000 + seconds * 1'000'000);
}

Job NewJob(const std::string& id) {
  Job job;
  job.id = id;
  job.queue_name = "q";
  job.payload = R"({"n":1})";
  job.created_at = At(0);
  job.updated_at = At(0);
  job.scheduled_at = At(0);
  return job;
}

HistoryEntry Entry(const std::string& id, const std::string& job_id, const char* event) {
  HistoryEntry h;
  h.id = id;
  h.job_id = job_id;
  h.event_type = event;
  h.created_at = At(1);
  return h;
}

// The change that claims `before` for worker w with lease `lease`.
Change ClaimOf(const Job& before, const std::string& lease) {
  Change c;
  c.before = before;
  c.after = before;
  c.after.status = JobStatus::kProcessing;
  c.after.assigned_worker_id = "w";
  c.after.lease_id = lease;
  c.after.lease_expires_at = At(60);
  c.after.started_at = At(1);
  c.after.updated_at = At(1);
  c.after.attempts = 1;
  c.history = Entry("h-claim-" + before.id, before.id, "claimed");
  return c;
}

class PgDeferredWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = FreshDatabaseUrl();
    store_ = OpenStore(url_);
    ASSERT_NE(store_, nullptr);
    watcher_ = Connect(url_);
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok());
    for (const char* id : {"a", "b"}) {
      Job job = NewJob(id);
      ASSERT_TRUE((*tx)->InsertJob(job, Entry(std::string("h-") + id, id, "created")).ok());
    }
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  // The last statement the other session of this database that is inside a
  // transaction sent.
  std::string LastStatementOfOpenTransaction() {
    return Scalar(*watcher_,
                  "SELECT query FROM pg_stat_activity WHERE datname = current_database()"
                  " AND state = 'idle in transaction'");
  }

  std::string url_;
  std::unique_ptr<PgStore> store_;
  std::unique_ptr<PgConnection> watcher_;
};

TEST_F(PgDeferredWriteTest, TheWriteOfALockedJobRidesWithTheCommit) {
  auto tx = store_->BeginWrite();
  ASSERT_TRUE(tx.ok());
  auto job = (*tx)->GetJob("a");  // locks it
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  ASSERT_TRUE((*tx)->ApplyChange(ClaimOf(*job, "lease-1")).ok());
  // Not sent yet: the session's last statement is still the locking read's
  // pipeline (its second statement reads what waits for the job).
  EXPECT_THAT(LastStatementOfOpenTransaction(), StartsWith("SELECT"));
  EXPECT_THAT(LastStatementOfOpenTransaction(), HasSubstr("redrive.job_dependencies"));
  ASSERT_TRUE((*tx)->Commit().ok());
  auto read = store_->BeginRead();
  ASSERT_TRUE(read.ok());
  auto after = (*read)->GetJob("a");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->status, JobStatus::kProcessing);
  EXPECT_EQ(after->lease_id, "lease-1");
  EXPECT_EQ((*read)->GetHistory("a")->size(), 2u);
}

TEST_F(PgDeferredWriteTest, TheTransactionReadsWhatItDeferred) {
  auto tx = store_->BeginWrite();
  ASSERT_TRUE(tx.ok());
  auto jobs = (*tx)->GetJobs({"a", "b"});
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  auto applied = (*tx)->ApplyChanges({ClaimOf((*jobs)[0], "l-a"), ClaimOf((*jobs)[1], "l-b")});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(*applied, std::vector<bool>({true, true}));
  // The next statement carries the writes before it.
  auto a = (*tx)->GetJob("a");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status, JobStatus::kProcessing);
  EXPECT_EQ((*tx)->GetHistory("b")->size(), 2u);
  // A second change of a job this transaction wrote is deferred too, and
  // its guard is what the first change wrote.
  Change complete;
  complete.before = *a;
  complete.after = *a;
  complete.after.status = JobStatus::kCompleted;
  complete.after.lease_id.reset();
  complete.after.lease_expires_at.reset();
  complete.after.assigned_worker_id.reset();
  complete.after.completed_at = At(2);
  complete.history = Entry("h-done-a", "a", "completed");
  ASSERT_TRUE((*tx)->ApplyChange(complete).ok());
  Status commit = (*tx)->Commit();
  ASSERT_TRUE(commit.ok()) << commit.ToString();
  auto read = store_->BeginRead();
  EXPECT_EQ((*read)->GetJob("a")->status, JobStatus::kCompleted);
  EXPECT_EQ((*read)->GetJob("b")->status, JobStatus::kProcessing);
}

TEST_F(PgDeferredWriteTest, AStaleWriteOfAJobNotLockedHereIsRefusedAtOnce) {
  Job stale = NewJob("a");
  stale.status = JobStatus::kProcessing;  // it is pending
  stale.lease_id = "old";
  auto tx = store_->BeginWrite();
  ASSERT_TRUE(tx.ok());
  Change c = ClaimOf(stale, "new");
  EXPECT_EQ((*tx)->ApplyChange(c).code(), ErrorCode::kConflict);
}

TEST_F(PgDeferredWriteTest, AFailedDeferredCommandKeepsTheCommitFromRunning) {
  auto conn = Connect(url_);
  ASSERT_TRUE(conn->Exec("CREATE TABLE t (x int)").ok());
  ASSERT_TRUE(conn->Exec("BEGIN").ok());
  PgParams one;
  one.Add(1);
  ASSERT_TRUE(conn->ExecPrepared("INSERT INTO t VALUES ($1)", one).ok());
  // As a checked guarded write whose guard failed: a division by zero.
  PgParams two;
  two.Add(2);
  conn->Defer("SELECT 1 / count(*) FROM t WHERE x = $1", std::move(two));
  auto commit = conn->ExecPrepared("COMMIT", PgParams());
  EXPECT_EQ(commit.status().code(), ErrorCode::kConflict) << commit.status().ToString();
  EXPECT_TRUE(conn->InTransaction());
  ASSERT_TRUE(conn->Exec("ROLLBACK").ok());
  EXPECT_EQ(Scalar(*conn, "SELECT count(*) FROM t"), "0");

  // A deferred command that holds commits with it; Exec sends it first.
  ASSERT_TRUE(conn->Exec("BEGIN").ok());
  ASSERT_TRUE(conn->ExecPrepared("INSERT INTO t VALUES ($1)", one).ok());
  PgParams also_one;
  also_one.Add(1);
  conn->Defer("SELECT 1 / count(*) FROM t WHERE x = $1", std::move(also_one));
  EXPECT_TRUE(conn->HasDeferred());
  EXPECT_EQ(Scalar(*conn, "SELECT count(*) FROM t"), "1");
  EXPECT_FALSE(conn->HasDeferred());
  ASSERT_TRUE(conn->ExecPrepared("COMMIT", PgParams()).ok());
  EXPECT_FALSE(conn->InTransaction());
}

}  // namespace
}  // namespace redrive::store::postgres
