// SqliteStore specifics: opening files, durability across reopen, snapshot
// reads and the CHECK constraints. Behaviour common to all stores is in
// tests/store (the conformance suite).
#include "store/sqlite/sqlite_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "store/sqlite/connection.h"
#include "store/sqlite/history_codec.h"
#include "store/sqlite/sqlite_schema.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store {
namespace {

using sqlite::TempDirForTest;

Instant At(int64_t seconds) {
  return InstantFromMicros(1'800'000'000'000'000 + seconds * 1'000'000);
}

Job PendingJob(const std::string& id) {
  Job job;
  job.id = id;
  job.queue_name = "q";
  job.payload = "{}";
  job.created_at = job.updated_at = job.scheduled_at = At(0);
  return job;
}

HistoryEntry Created(const Job& job) {
  return HistoryEntry{"created-" + job.id, job.id, "created", std::nullopt, "{}", job.created_at};
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<SqliteStore> OpenMigrated(const std::string& path) {
    auto store = SqliteStore::Open(path);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    if (!store.ok()) return nullptr;
    Status st = (*store)->Migrate();
    EXPECT_TRUE(st.ok()) << st.ToString();
    return std::move(*store);
  }
  Status InsertAndCommit(Store& store, const Job& job) {
    auto tx = store.BeginWrite();
    if (!tx.ok()) return tx.status();
    auto out = (*tx)->InsertJob(job, Created(job));
    if (!out.ok()) return out.status();
    return (*tx)->Commit();
  }
  TempDirForTest dir_;
};

TEST_F(SqliteStoreTest, CreatesParentDirectories) {
  std::string path = dir_.File("a/b/c/redrive.db");
  auto store = OpenMigrated(path);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(store->path(), path);
  EXPECT_NE(store->Describe().find("WAL, synchronous=NORMAL, WAL synced before each answer"),
            std::string::npos);
  EXPECT_TRUE(store->traits().pipelined_sync);
}

// Commit marks: a commit is numbered when it starts, CommitWithoutSync
// returns before the sync, SyncCommits covers every commit that ended, and
// Commit (for callers outside the group committer) syncs by itself.
TEST_F(SqliteStoreTest, PipelinedCommitsAreNumberedAndSyncCoversThoseThatEnded) {
  auto store = OpenMigrated(dir_.File("marks.db"));
  ASSERT_NE(store, nullptr);
  const uint64_t start = store->CommitMark();
  {
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE((*tx)->InsertJob(PendingJob("a"), Created(PendingJob("a"))).ok());
    EXPECT_EQ(store->CommitMark(), start) << "numbered when the commit starts, not before";
    ASSERT_TRUE((*tx)->CommitWithoutSync().ok());
  }
  EXPECT_EQ(store->CommitMark(), start + 1);
  {
    // Visible before it is synced: a reader sees it, with a mark that says
    // it must wait.
    auto read = store->BeginRead();
    ASSERT_TRUE(read.ok());
    EXPECT_TRUE((*read)->GetJob("a").ok());
  }
  auto covered = store->SyncCommits();
  ASSERT_TRUE(covered.ok()) << covered.status().ToString();
  EXPECT_EQ(*covered, start + 1);
  // Nothing new to sync: the same mark.
  EXPECT_EQ(*store->SyncCommits(), start + 1);
  ASSERT_TRUE(InsertAndCommit(*store, PendingJob("b")).ok());
  EXPECT_EQ(store->CommitMark(), start + 2);
  EXPECT_EQ(*store->SyncCommits(), start + 2);
}

TEST_F(SqliteStoreTest, FullSyncCommitsWithAnFsyncEach) {
  SqliteOptions options;
  options.sync = SqliteSync::kFull;
  auto store = SqliteStore::Open(dir_.File("full.db"), options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_NE((*store)->Describe().find("WAL, synchronous=FULL"), std::string::npos);
  EXPECT_FALSE((*store)->traits().pipelined_sync);
  EXPECT_EQ((*store)->CommitMark(), 0u);
}

TEST_F(SqliteStoreTest, CorruptFileIsAClearStatus) {
  std::string path = dir_.File("garbage.db");
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 1000; ++i) out << "this is not a database ";
  }
  auto store = SqliteStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(store.status().message().find(path), std::string::npos) << store.status().ToString();
  EXPECT_NE(store.status().message().find("not a database"), std::string::npos);
}

TEST_F(SqliteStoreTest, UnopenablePathIsAClearStatus) {
  std::string blocker = dir_.File("file");
  std::ofstream(blocker) << "x";
  auto store = SqliteStore::Open(blocker + "/sub/redrive.db");  // parent is a file
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), ErrorCode::kUnavailable);
  auto dir_as_db = SqliteStore::Open(dir_.path().string());
  EXPECT_FALSE(dir_as_db.ok());
}

TEST_F(SqliteStoreTest, CommittedDataSurvivesReopen) {
  std::string path = dir_.File("durable.db");
  {
    auto store = OpenMigrated(path);
    ASSERT_TRUE(InsertAndCommit(*store, PendingJob("kept")).ok());
    auto tx = store->BeginWrite();
    Job lost = PendingJob("lost");
    ASSERT_TRUE((*tx)->InsertJob(lost, Created(lost)).ok());
    // Never committed: the store closes with the transaction rolled back.
  }
  auto store = OpenMigrated(path);
  auto tx = store->BeginRead();
  ASSERT_TRUE(tx.ok());
  auto kept = (*tx)->GetJob("kept");
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(*kept, PendingJob("kept"));
  EXPECT_EQ((*tx)->GetHistory("kept")->size(), 1u);
  EXPECT_EQ((*tx)->GetJob("lost").status().code(), ErrorCode::kNotFound);
}

// A store written before the compact layout (schema version 24: payloads
// and history keyed by jobs.seq) is upgraded at open and then serves what it
// held through the store's own reads and writes: the job with its payload
// and result, its history in order (text ids as stored, new entries after
// them), and a delete that takes all of it.
TEST_F(SqliteStoreTest, AStoreFromBeforeTheCompactLayoutServesItsJobsAfterTheUpgrade) {
  const std::string path = dir_.File("v23.db");
  const std::string id = "01a243de-882f-708e-a89a-e436b9173288";
  {
    sqlite::ConnectionOptions options;
    options.writer = true;
    auto conn = sqlite::Connection::Open(path, options);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    size_t before = 0;
    while (std::string(sqlite::Migrations()[before].name).find("compact job storage") != 0) {
      ++before;
    }
    ASSERT_TRUE(sqlite::Migrate(**conn, sqlite::Migrations().first(before)).ok());
    ASSERT_TRUE(
        (*conn)
            ->ExecScript(
                "INSERT INTO jobs (id, queue_name, status, priority, retry_count, max_retries,"
                " timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, tags,"
                " created_at, updated_at, scheduled_at, started_at, completed_at, attempts)"
                " VALUES ('" +
                id +
                "', 'q', 'completed', 0, 0, 3, 30, 1, 1, 1, '{\"k\":\"v\"}',"
                " 1800000000000000, 1800000000000000, 1800000000000000, 1800000000000000,"
                " 1800000000000000, 1);"
                "INSERT INTO job_payloads VALUES ('" +
                id +
                "', '{\"x\":1}', '\"ok\"');"
                "INSERT INTO job_tags VALUES ('" +
                id +
                "', 'k', 'v');"
                "INSERT INTO job_history (id, job_id, event_type, worker_id, details, created_at,"
                " node_id) VALUES"
                " ('01a243de-882f-7596-bc9e-152d007ef52f', '" +
                id +
                "', 'created', NULL, '{\"queue_name\":\"q\"}', 1800000000000000, 'n1'),"
                " ('legacy-entry', '" +
                id + "', 'completed', 'w1', '{}', 1800000000000000, NULL);")
            .ok());
  }
  auto store = OpenMigrated(path);
  ASSERT_NE(store, nullptr);
  // The migrations ran under a rollback journal (SqliteStore::Migrate); the
  // file is back in WAL mode and no journal is left behind.
  {
    sqlite::ConnectionOptions options;
    auto reader = sqlite::Connection::Open(path, options);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    auto mode = (*reader)->Prepare("PRAGMA journal_mode");
    ASSERT_TRUE(mode.ok() && *mode->Step());
    EXPECT_EQ(mode->String(0), "wal");
    EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
  }
  {
    auto tx = store->BeginRead();
    ASSERT_TRUE(tx.ok());
    auto job = (*tx)->GetJob(id);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    EXPECT_EQ(job->status, JobStatus::kCompleted);
    EXPECT_EQ(job->payload, "{\"x\":1}");
    EXPECT_EQ(job->result, "\"ok\"");
    EXPECT_EQ(job->tags, (Tags{{"k", "v"}}));
    auto history = (*tx)->GetHistory(id);
    ASSERT_TRUE(history.ok()) << history.status().ToString();
    ASSERT_EQ(history->size(), 2u);
    EXPECT_EQ((*history)[0].id, "01a243de-882f-7596-bc9e-152d007ef52f");
    EXPECT_EQ((*history)[0].details_json, "{\"queue_name\":\"q\"}");
    EXPECT_EQ((*history)[0].node_id, "n1");
    EXPECT_EQ((*history)[1].id, "legacy-entry");
    EXPECT_EQ((*history)[1].worker_id, "w1");
  }
  {
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok());
    auto job = (*tx)->GetJob(id);
    ASSERT_TRUE(job.ok());
    Change change;
    change.before = *job;
    change.after = *job;
    change.after.result = "\"again\"";
    change.history = HistoryEntry{
        "01a243de-9000-7000-8000-000000000001",  id, "result_updated", std::nullopt, "{}",
        InstantFromMicros(1'800'000'000'000'000)};
    ASSERT_TRUE((*tx)->ApplyChange(change).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  {
    auto tx = store->BeginRead();
    ASSERT_TRUE(tx.ok());
    EXPECT_EQ((*tx)->GetJob(id)->result, "\"again\"");
    auto history = (*tx)->GetHistory(id);
    ASSERT_TRUE(history.ok());
    ASSERT_EQ(history->size(), 3u);
    // A new entry's id is derived from the job's seq (1, its only job) and
    // its place (history_codec.h); the converted entries kept theirs.
    EXPECT_EQ((*history)[2].event_type, "result_updated");
    EXPECT_EQ((*history)[2].id,
              sqlite::history::DerivedEntryId(1, 2, InstantFromMicros(1'800'000'000'000'000)));
  }
  {
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok());
    auto deleted = (*tx)->DeleteJobs({id});
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    EXPECT_EQ(*deleted, 1);
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  auto tx = store->BeginRead();
  ASSERT_TRUE(tx.ok());
  EXPECT_EQ((*tx)->GetJob(id).status().code(), ErrorCode::kNotFound);
  EXPECT_TRUE((*tx)->GetHistory(id)->empty());
}

// The migrations want the file to themselves for their rollback journal; a
// reader of another process in the middle of a read (a backup) makes the
// switch fail busy, and they run in WAL instead: the upgrade still happens.
TEST_F(SqliteStoreTest, MigrationsRunInWalWhenAnotherConnectionReads) {
  const std::string path = dir_.File("shared.db");
  sqlite::ConnectionOptions writer_options;
  writer_options.writer = true;
  {
    auto conn = sqlite::Connection::Open(path, writer_options);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    ASSERT_TRUE(sqlite::Migrate(**conn, sqlite::Migrations().first(1)).ok());
  }
  sqlite::ConnectionOptions reader_options;
  auto reader = sqlite::Connection::Open(path, reader_options);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  ASSERT_TRUE((*reader)->Exec("BEGIN").ok());
  {
    auto count = (*reader)->Prepare("SELECT count(*) FROM jobs");
    ASSERT_TRUE(count.ok() && *count->Step());  // the read transaction holds its snapshot
  }
  SqliteOptions options;
  options.busy_timeout = std::chrono::milliseconds(50);
  auto store = SqliteStore::Open(path, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Status st = (*store)->Migrate();
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_TRUE((*reader)->Exec("COMMIT").ok());
  ASSERT_TRUE(InsertAndCommit(**store, PendingJob("after")).ok());
  auto tx = (*store)->BeginRead();
  ASSERT_TRUE(tx.ok());
  EXPECT_TRUE((*tx)->GetJob("after").ok());
  auto mode = (*reader)->Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok() && *mode->Step());
  EXPECT_EQ(mode->String(0), "wal");
}

TEST_F(SqliteStoreTest, ReadTxIsASnapshot) {
  auto store = OpenMigrated(dir_.File("snap.db"));
  ASSERT_TRUE(InsertAndCommit(*store, PendingJob("before")).ok());
  auto reader = store->BeginRead();
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->CountJobs(std::nullopt)->total(), 1);  // fixes the snapshot
  ASSERT_TRUE(InsertAndCommit(*store, PendingJob("after")).ok());
  EXPECT_EQ((*reader)->GetJob("after").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ((*reader)->CountJobs(std::nullopt)->total(), 1);
  reader->reset();
  EXPECT_TRUE((*store->BeginRead())->GetJob("after").ok());
}

TEST_F(SqliteStoreTest, ManyReadersAtOnceEachGetAConnection) {
  auto store = OpenMigrated(dir_.File("readers.db"));
  ASSERT_TRUE(InsertAndCommit(*store, PendingJob("x")).ok());
  std::vector<std::unique_ptr<ReadTx>> open;
  for (int i = 0; i < 12; ++i) {  // more than max_idle_readers
    auto tx = store->BeginRead();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    EXPECT_TRUE((*tx)->GetJob("x").ok());
    open.push_back(std::move(*tx));
  }
  open.clear();
  EXPECT_TRUE(store->Ping().ok());
}

TEST_F(SqliteStoreTest, CheckConstraintsRefuseImpossibleStates) {
  auto store = OpenMigrated(dir_.File("checks.db"));
  Job no_lease = PendingJob("no-lease");
  no_lease.status = JobStatus::kProcessing;  // processing without a lease
  Job stray_lease = PendingJob("stray-lease");
  stray_lease.lease_id = "l";  // a lease outside processing
  Job loud = PendingJob("loud");
  loud.priority = 101;
  Job negative = PendingJob("negative");
  negative.retry_count = -1;
  Job dead = PendingJob("dead");
  dead.status = JobStatus::kDeadletter;  // no deadlettered_at / dead_reason
  for (const Job& job : {no_lease, stray_lease, loud, negative, dead}) {
    Status st = InsertAndCommit(*store, job);
    EXPECT_EQ(st.code(), ErrorCode::kInternal) << job.id << ": " << st.ToString();
  }
  EXPECT_EQ((*store->BeginRead())->CountJobs(std::nullopt)->total(), 0);
}

TEST_F(SqliteStoreTest, GuardedWriteCannotBreakTheLeaseInvariant) {
  auto store = OpenMigrated(dir_.File("guard.db"));
  Job job = PendingJob("j");
  ASSERT_TRUE(InsertAndCommit(*store, job).ok());
  Change bad;
  bad.before = job;
  bad.after = job;
  bad.after.status = JobStatus::kProcessing;  // forgot the lease
  auto tx = store->BeginWrite();
  EXPECT_EQ((*tx)->ApplyChange(bad).code(), ErrorCode::kInternal);
  Change moved = bad;
  moved.after = job;
  moved.after.created_at = job.created_at + std::chrono::seconds(1);  // immutable
  EXPECT_EQ((*tx)->ApplyChange(moved).code(), ErrorCode::kInternal);
}

// A queue's name is kept once (schema version 29): each job holds its id.
// A job moved to another queue reads back the new name and is listed there;
// a deleted queue's name goes with its jobs, and stays while jobs are in it.
TEST_F(SqliteStoreTest, AQueueNameIsKeptOnceAndGoesWithItsLastJob) {
  const std::string path = dir_.File("names.db");
  auto store = OpenMigrated(path);
  auto names = [&] {
    auto conn = sqlite::Connection::Open(path, {});
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    auto stmt = (*conn)->Prepare(
        "SELECT coalesce(group_concat(name, ','), '') FROM"
        " (SELECT name FROM queue_names ORDER BY name)");
    EXPECT_TRUE(stmt.ok() && *stmt->Step());
    return stmt->String(0);
  };
  auto listed = [&](const std::string& queue) {
    JobFilter f;
    f.queue_name = queue;
    auto jobs = (*store->BeginRead())->ListJobs(f, false);
    EXPECT_TRUE(jobs.ok()) << jobs.status().ToString();
    std::string ids;
    for (const Job& job : *jobs) ids += (ids.empty() ? "" : ",") + job.id;
    return ids;
  };
  Job sms = PendingJob("b1");
  sms.queue_name = "sms";
  for (const Job& job : {PendingJob("a1"), PendingJob("a2"), sms}) {
    ASSERT_TRUE(InsertAndCommit(*store, job).ok());
  }
  {
    auto tx = store->BeginWrite();
    for (const char* queue : {"q", "sms"}) {
      QueueConfig config;
      config.queue_name = queue;
      ASSERT_TRUE((*tx)->PutQueue(config).ok());
    }
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  EXPECT_EQ(names(), "q,sms");

  Change move;
  move.before = PendingJob("a2");
  move.after = move.before;
  move.after.queue_name = "moved";
  {
    auto tx = store->BeginWrite();
    ASSERT_TRUE((*tx)->ApplyChange(move).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  EXPECT_EQ((*store->BeginRead())->GetJob("a2")->queue_name, "moved");
  EXPECT_EQ(listed("moved"), "a2");
  EXPECT_EQ(listed("q"), "a1");
  EXPECT_EQ(listed("never"), "");
  EXPECT_EQ(names(), "moved,q,sms");

  {
    auto tx = store->BeginWrite();
    ASSERT_TRUE((*tx)->DeleteQueue("q", /*delete_jobs=*/true).ok());
    ASSERT_TRUE((*tx)->DeleteQueue("sms", /*delete_jobs=*/false).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  EXPECT_EQ(names(), "moved,sms");
  EXPECT_EQ((*store->BeginRead())->GetJob("b1")->queue_name, "sms");
  EXPECT_EQ((*store->BeginRead())->GetJob("a1").status().code(), ErrorCode::kNotFound);
}

// A job's id is stored as its 16 bytes when it is a UUID in canonical text
// (schema version 29), in jobs and in job_tags, and as text otherwise; both
// are found by their text, through a tag too, and deleted with their tags.
TEST_F(SqliteStoreTest, AUuidJobIdIsStoredAs16Bytes) {
  const std::string path = dir_.File("ids.db");
  auto store = OpenMigrated(path);
  const std::string uuid = "01a243de-882f-708e-a89a-e436b9173288";
  Job compact = PendingJob(uuid);
  compact.tags = {{"tenant", "acme"}};
  Job other = PendingJob("legacy-7");
  other.tags = {{"tenant", "acme"}};
  ASSERT_TRUE(InsertAndCommit(*store, compact).ok());
  ASSERT_TRUE(InsertAndCommit(*store, other).ok());
  auto stored = [&](const std::string& sql) {
    auto conn = sqlite::Connection::Open(path, {});
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    auto stmt = (*conn)->Prepare(sql);
    EXPECT_TRUE(stmt.ok() && *stmt->Step()) << sql;
    return stmt->String(0);
  };
  EXPECT_EQ(stored("SELECT group_concat(typeof(id) || length(CAST(id AS BLOB)), ',')"
                   " FROM (SELECT id FROM jobs ORDER BY seq)"),
            "blob16,text8");
  EXPECT_EQ(stored("SELECT group_concat(typeof(job_id), ',')"
                   " FROM (SELECT job_id FROM job_tags ORDER BY typeof(job_id))"),
            "blob,text");
  {
    auto tx = store->BeginRead();
    EXPECT_EQ(*(*tx)->GetJob(uuid), compact);
    EXPECT_EQ(*(*tx)->GetJob("legacy-7"), other);
    JobFilter f;
    f.tag = "tenant=acme";
    auto tagged = (*tx)->ListJobs(f, true);
    ASSERT_TRUE(tagged.ok()) << tagged.status().ToString();
    EXPECT_EQ(tagged->size(), 2u);
  }
  {
    auto tx = store->BeginWrite();
    EXPECT_EQ(*(*tx)->DeleteJobs({uuid}), 1);
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  EXPECT_EQ(stored("SELECT count(*) FROM job_tags"), "1");
  EXPECT_EQ((*store->BeginRead())->GetJob(uuid).status().code(), ErrorCode::kNotFound);
}

TEST_F(SqliteStoreTest, WriterWaitsForTheLiveWriteTx) {
  auto store = OpenMigrated(dir_.File("writers.db"));
  auto first = store->BeginWrite();
  ASSERT_TRUE(first.ok());
  std::atomic<bool> second_started{false};
  std::thread other([&] {
    auto second = store->BeginWrite();  // blocks until `first` is gone
    second_started = true;
    EXPECT_TRUE(second.ok());
    EXPECT_TRUE((*second)->GetJob("from-first").ok());
  });
  Job job = PendingJob("from-first");
  ASSERT_TRUE((*first)->InsertJob(job, Created(job)).ok());
  EXPECT_FALSE(second_started);
  ASSERT_TRUE((*first)->Commit().ok());
  first->reset();
  other.join();
  EXPECT_TRUE(second_started);
}

}  // namespace
}  // namespace redrive::store
