// A SqliteStore on a sick disk (FaultVfs): a failed commit is never visible,
// a full disk or a held write lock fails commits until it clears and then
// writes succeed again without a restart, and a failed fsync stops every
// write for good (fail-stop). Ping (readiness) follows each of these.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "store/sqlite/fault_vfs_test_util.h"
#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store {
namespace {

using sqlite::testing::FaultFile;
using sqlite::testing::FaultOp;
using sqlite::testing::FaultVfs;

const Instant kT0 = InstantFromMicros(1'800'000'000'000'000);

Job PendingJob(const std::string& id) {
  Job job;
  job.id = id;
  job.queue_name = "q";
  job.payload = R"({"n":1})";
  job.created_at = job.updated_at = job.scheduled_at = kT0;
  return job;
}

class SqliteFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    faults_.Clear();
    SqliteOptions options;
    options.vfs = FaultVfs::kName;
    options.busy_timeout = std::chrono::milliseconds(1);  // a held lock fails at once
    options.sync = sync_;
    auto store = SqliteStore::Open(dir_.File("redrive.db"), options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    ASSERT_TRUE(store_->Migrate().ok());
    ASSERT_TRUE(Insert("before").ok());
  }
  void TearDown() override {
    store_.reset();
    faults_.Clear();
  }

  // Inserts one job in a transaction of its own and commits it.
  Status Insert(const std::string& id) {
    auto tx = store_->BeginWrite();
    if (!tx.ok()) return tx.status();
    Job job = PendingJob(id);
    HistoryEntry created{"h-" + id, id, "created", std::nullopt, "{}", kT0};
    if (auto out = (*tx)->InsertJob(job, created); !out.ok()) return out.status();
    return (*tx)->Commit();
  }
  // Closes the store and opens the file again (the disk fixed), as a
  // restarted server does: SQLite replays what the WAL holds on disk.
  void Restart() {
    store_.reset();
    SqliteOptions options;
    options.vfs = FaultVfs::kName;
    auto reopened = SqliteStore::Open(dir_.File("redrive.db"), options);
    ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
    store_ = std::move(reopened).value();
  }
  bool Exists(const std::string& id) {
    auto tx = store_->BeginRead();
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    return tx.ok() && (*tx)->GetJob(id).ok();
  }

  FaultVfs& faults_ = FaultVfs::Install();
  sqlite::TempDirForTest dir_;
  std::unique_ptr<SqliteStore> store_;
  // How the store syncs: FULL here (SQLite's COMMIT meets the fault);
  // SqlitePipelinedFaultsTest syncs the WAL apart.
  SqliteSync sync_ = SqliteSync::kFull;
};

class SqlitePipelinedFaultsTest : public SqliteFaultsTest {
 protected:
  void SetUp() override {
    sync_ = SqliteSync::kPipelined;
    SqliteFaultsTest::SetUp();
  }
};

// The WAL sync after a pipelined COMMIT fails: Commit (and SyncCommits)
// report it, the store stops for good, and a restart recovers what reached
// the disk.
TEST_F(SqlitePipelinedFaultsTest, FailedWalSyncStopsWritesForGood) {
  faults_.Inject(FaultOp::kSync, FaultFile::kWal, SQLITE_IOERR_FSYNC, 1);
  Status st = Insert("unsure");
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.message().find("writes are stopped"), std::string::npos) << st.message();
  EXPECT_EQ(faults_.injected(), 1);
  auto sync = store_->SyncCommits();
  EXPECT_EQ(sync.status().code(), ErrorCode::kUnavailable) << "a failed sync is final";
  Status again = Insert("after");
  EXPECT_EQ(again.code(), ErrorCode::kUnavailable);
  EXPECT_NE(again.message().find("restart"), std::string::npos) << again.message();
  EXPECT_EQ(store_->Ping().code(), ErrorCode::kUnavailable);

  ASSERT_NO_FATAL_FAILURE(Restart());
  EXPECT_TRUE(store_->Ping().ok());
  EXPECT_TRUE(Exists("before"));
  EXPECT_TRUE(Insert("after").ok());
  EXPECT_TRUE(Exists("after"));
}

// A commit that changed no row (a claim that found nothing) wrote nothing to
// the WAL: syncing it costs no fsync. One that follows an unsynced write
// still gets the fsync that write needs.
TEST_F(SqlitePipelinedFaultsTest, ACommitThatChangedNothingIsSyncedWithoutAnFsync) {
  auto commit_nothing = [this] {
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    ASSERT_TRUE((*tx)->GetJob("before").ok());
    ASSERT_TRUE((*tx)->CommitWithoutSync().ok());
  };
  const int synced = faults_.calls(FaultOp::kSync);
  ASSERT_NO_FATAL_FAILURE(commit_nothing());
  auto covered = store_->SyncCommits();
  ASSERT_TRUE(covered.ok()) << covered.status().ToString();
  EXPECT_EQ(*covered, store_->CommitMark()) << "the commit counts as synced";
  EXPECT_EQ(faults_.calls(FaultOp::kSync), synced);

  {
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok());
    Job job = PendingJob("unsynced");
    HistoryEntry created{"h-unsynced", job.id, "created", std::nullopt, "{}", kT0};
    ASSERT_TRUE((*tx)->InsertJob(job, created).ok());
    ASSERT_TRUE((*tx)->CommitWithoutSync().ok());
  }
  ASSERT_NO_FATAL_FAILURE(commit_nothing());
  covered = store_->SyncCommits();
  ASSERT_TRUE(covered.ok());
  EXPECT_EQ(*covered, store_->CommitMark());
  EXPECT_EQ(faults_.calls(FaultOp::kSync), synced + 1) << "the insert before it is synced";
}

TEST_F(SqliteFaultsTest, HealthyStoreIsReady) {
  EXPECT_TRUE(store_->Ping().ok());
  EXPECT_TRUE(Exists("before"));
  EXPECT_GT(faults_.calls(FaultOp::kSync), 0) << "the store does not run on the shim";
}

TEST_F(SqliteFaultsTest, FailedFsyncStopsWritesForGood) {
  faults_.Inject(FaultOp::kSync, FaultFile::kWal, SQLITE_IOERR_FSYNC, 1);
  Status st = Insert("lost");
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.ToString();
  EXPECT_NE(st.message().find("writes are stopped"), std::string::npos) << st.message();
  EXPECT_EQ(faults_.injected(), 1);
  EXPECT_FALSE(Exists("lost"));
  EXPECT_TRUE(Exists("before"));

  // The fault is spent, the disk would take writes again: the store still
  // refuses them, and says why, until it is reopened.
  Status again = Insert("after");
  EXPECT_EQ(again.code(), ErrorCode::kUnavailable);
  EXPECT_NE(again.message().find("restart"), std::string::npos) << again.message();
  EXPECT_FALSE(Exists("after"));
  Status ping = store_->Ping();
  EXPECT_EQ(ping.code(), ErrorCode::kUnavailable);
  EXPECT_NE(ping.message().find("fsync"), std::string::npos) << ping.message();
  auto leadership = store_->NewLeadership("n1");
  ASSERT_TRUE(leadership.ok());
  EXPECT_FALSE((*leadership)->Hold("scheduler", kT0).ok()) << "leases are writes too";

  // A restart is the recovery.
  ASSERT_NO_FATAL_FAILURE(Restart());
  EXPECT_TRUE(store_->Ping().ok());
  EXPECT_TRUE(Insert("after").ok());
  EXPECT_TRUE(Exists("after"));
}

TEST_F(SqliteFaultsTest, FullDiskFailsCommitsUntilFreedThenWritesSucceedAgain) {
  faults_.Inject(FaultOp::kWrite, FaultFile::kAny, SQLITE_FULL);
  for (const char* id : {"full-1", "full-2"}) {
    Status st = Insert(id);
    EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.ToString();
    EXPECT_FALSE(Exists(id));
  }
  EXPECT_GE(faults_.injected(), 2);
  Status ping = store_->Ping();
  EXPECT_EQ(ping.code(), ErrorCode::kUnavailable);
  EXPECT_NE(ping.message().find("full"), std::string::npos) << ping.message();

  faults_.Clear();  // space freed: no restart needed
  EXPECT_TRUE(Insert("full-1").ok());
  EXPECT_TRUE(Exists("full-1"));
  EXPECT_TRUE(store_->Ping().ok());
}

TEST_F(SqliteFaultsTest, HeldWriteLockFailsWritesUntilReleased) {
  faults_.Inject(FaultOp::kWriteLock, FaultFile::kAny, SQLITE_BUSY);
  Status st = Insert("busy");
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.ToString();
  EXPECT_FALSE(Exists("busy"));
  EXPECT_EQ(store_->Ping().code(), ErrorCode::kUnavailable);

  faults_.Clear();
  EXPECT_TRUE(Insert("busy").ok());
  EXPECT_TRUE(store_->Ping().ok());
}

TEST_F(SqliteFaultsTest, IdleStoreTurnsReadyWhenALeaseRenewalCommits) {
  faults_.Inject(FaultOp::kWrite, FaultFile::kAny, SQLITE_FULL);
  EXPECT_FALSE(Insert("full").ok());
  EXPECT_FALSE(store_->Ping().ok());
  auto leadership = store_->NewLeadership("n1");
  ASSERT_TRUE(leadership.ok());
  EXPECT_FALSE((*leadership)->Hold("scheduler", kT0).ok()) << "the disk is still full";
  EXPECT_FALSE(store_->Ping().ok());

  faults_.Clear();
  // No client writes: the background loop's next lease renewal commits.
  auto held = (*leadership)->Hold("scheduler", kT0);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_TRUE(*held);
  EXPECT_TRUE(store_->Ping().ok());
}

TEST_F(SqliteFaultsTest, CommitThatWritesNothingDoesNotClaimRecovery) {
  faults_.Inject(FaultOp::kWrite, FaultFile::kAny, SQLITE_FULL);
  EXPECT_FALSE(Insert("full").ok());
  faults_.Clear();
  {
    auto tx = store_->BeginWrite();  // a claim that found nothing, say
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  EXPECT_FALSE(store_->Ping().ok()) << "nothing was written, so nothing is known";
  EXPECT_TRUE(Insert("full").ok());
  EXPECT_TRUE(store_->Ping().ok());
}

// The background checkpoint copies the WAL into the database and fsyncs it;
// if that fsync fails, the database file's state is unknown as well.
TEST_F(SqliteFaultsTest, FailedFsyncOfACheckpointStopsWrites) {
  faults_.Inject(FaultOp::kSync, FaultFile::kDatabase, SQLITE_IOERR_FSYNC);
  {
    // One commit large enough (> Checkpointer::kCheckpointPages pages) to
    // wake the checkpointer.
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    for (int i = 0; i < 6000; ++i) {
      Job job = PendingJob("big-" + std::to_string(i));
      job.payload = "\"" + std::string(3000, 'x') + "\"";
      HistoryEntry created{"h-" + job.id, job.id, "created", std::nullopt, "{}", kT0};
      ASSERT_TRUE((*tx)->InsertJob(job, created).ok());
    }
    ASSERT_TRUE((*tx)->Commit().ok()) << "the WAL's own fsync is not failed";
  }
  // The checkpoint runs on its own thread: wait for its verdict.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (store_->Ping().ok() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_GE(faults_.injected(), 1);
  Status ping = store_->Ping();
  EXPECT_EQ(ping.code(), ErrorCode::kUnavailable);
  EXPECT_NE(ping.message().find("writes are stopped"), std::string::npos) << ping.message();
  faults_.Clear();
  EXPECT_EQ(Insert("after").code(), ErrorCode::kUnavailable);
  EXPECT_TRUE(Exists("big-0")) << "what was committed before stays readable";
}

}  // namespace
}  // namespace redrive::store
