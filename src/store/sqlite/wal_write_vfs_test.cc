// The WAL write shim (wal_write_vfs.h), stacked on the counting FaultVfs: a
// commit reaches the file in one write; every commit is readable by another
// connection as soon as it returns; a transaction larger than the buffer,
// whose pages SQLite spills before its commit, is written whole and read
// back; a failed write fails the COMMIT; and the WAL it leaves is one that
// SQLite recovers from after a power cut exactly as far as it was synced.
#include "store/sqlite/wal_write_vfs.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "store/sqlite/fault_vfs_test_util.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store::sqlite {
namespace {

using testing::FaultFile;
using testing::FaultOp;
using testing::FaultVfs;

constexpr int kPageSize = 4096;
constexpr int kFrameSize = 24 + kPageSize;

class Db {
 public:
  Db(const std::string& path, const std::string& vfs) {
    const int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                   vfs.empty() ? nullptr : vfs.c_str());
    EXPECT_EQ(rc, SQLITE_OK) << sqlite3_errstr(rc);
  }
  ~Db() { sqlite3_close(db_); }
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  int Exec(const std::string& sql) {
    return sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr);
  }
  // The first column of the first row of `sql`, as text ("" if none).
  std::string Value(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db_);
    std::string out;
    if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    }
    sqlite3_finalize(stmt);
    return out;
  }
  sqlite3_file* Wal() {
    sqlite3_file* wal = nullptr;
    EXPECT_EQ(sqlite3_file_control(db_, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal), SQLITE_OK);
    return wal;
  }

 private:
  sqlite3* db_ = nullptr;
};

class WalWriteVfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    faults_.Clear();
    auto name = WalWriteVfs(FaultVfs::kName);
    ASSERT_TRUE(name.ok()) << name.status().ToString();
    vfs_ = *name;
    writer_ = std::make_unique<Db>(path_, vfs_);
    // As the store's writer runs (connection.cc): WAL, NORMAL, and here no
    // automatic checkpoint, so the database file is not written at all.
    ASSERT_EQ(writer_->Value("PRAGMA journal_mode=WAL"), "wal");
    ASSERT_EQ(writer_->Exec("PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=0;"
                            "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)"),
              SQLITE_OK);
  }
  void TearDown() override { faults_.Clear(); }

  // Inserts `rows` rows of `bytes` random bytes each, in one transaction.
  int InsertRows(Db& db, int rows, int bytes) {
    return db.Exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
                   std::to_string(rows) + ") INSERT INTO t(v) SELECT randomblob(" +
                   std::to_string(bytes) + ") FROM n");
  }
  int64_t WalSize() { return static_cast<int64_t>(std::filesystem::file_size(path_ + "-wal")); }

  FaultVfs& faults_ = FaultVfs::Install();
  TempDirForTest dir_;
  const std::string path_ = dir_.File("t.db");
  std::string vfs_;
  std::unique_ptr<Db> writer_;
};

TEST_F(WalWriteVfsTest, ACommitReachesTheWalInOneWrite) {
  const int64_t before = WalSize();
  faults_.Clear();
  // Ten rows of 3,000 bytes: ten table pages and more.
  ASSERT_EQ(writer_->Exec("BEGIN; INSERT INTO t(v) VALUES (randomblob(3000)), (randomblob(3000)),"
                          "(randomblob(3000)), (randomblob(3000)), (randomblob(3000)),"
                          "(randomblob(3000)), (randomblob(3000)), (randomblob(3000)),"
                          "(randomblob(3000)), (randomblob(3000)); COMMIT"),
            SQLITE_OK);
  const int64_t frames = (WalSize() - before) / kFrameSize;
  EXPECT_GE(frames, 10);
  // SQLite's own two writes a frame arrive below the shim as one.
  EXPECT_EQ(faults_.calls(FaultOp::kWrite), 1) << frames << " frames";
}

TEST_F(WalWriteVfsTest, AnotherConnectionReadsEveryCommitAsSoonAsItReturns) {
  Db reader(path_, vfs_);
  int64_t expected_rows = 0;
  int64_t expected_bytes = 0;
  for (int i = 1; i <= 200; ++i) {
    ASSERT_EQ(InsertRows(*writer_, 1 + i % 7, 500 + 37 * i), SQLITE_OK);
    expected_rows += 1 + i % 7;
    expected_bytes += (1 + i % 7) * (500 + 37 * i);
    const std::string expected =
        std::to_string(expected_rows) + " " + std::to_string(expected_bytes);
    ASSERT_EQ(reader.Value("SELECT count(*) || ' ' || sum(length(v)) FROM t"), expected)
        << "after commit " << i;
    if (i % 25 == 0) {
      // As a process killed now leaves the files (nothing synced, the page
      // cache kept): nothing of a returned commit is still in the shim.
      const std::string image = dir_.File("killed-" + std::to_string(i) + ".db");
      ASSERT_EQ(faults_.CrashImage(path_, image), 0);
      Db killed(image, "");
      EXPECT_EQ(killed.Value("SELECT count(*) || ' ' || sum(length(v)) FROM t"), expected);
    }
  }
  EXPECT_EQ(reader.Value("PRAGMA integrity_check"), "ok");
}

TEST_F(WalWriteVfsTest, ATransactionLargerThanTheBufferIsWrittenWholeAndReadBack) {
  // A page cache of 64 pages makes SQLite spill the transaction's pages to
  // the WAL before its commit, and read them back from there.
  ASSERT_EQ(writer_->Exec("PRAGMA cache_size=64"), SQLITE_OK);
  ASSERT_EQ(writer_->Exec("BEGIN"), SQLITE_OK);
  ASSERT_EQ(InsertRows(*writer_, 3000, 3000), SQLITE_OK);  // ~9 MB: past the 4 MiB buffer
  // Reads every row the transaction wrote, most of them from spilled frames.
  EXPECT_EQ(writer_->Value("SELECT count(*) || ' ' || sum(length(v)) FROM t"), "3000 9000000");
  ASSERT_EQ(InsertRows(*writer_, 10, 3000), SQLITE_OK);
  ASSERT_EQ(writer_->Exec("COMMIT"), SQLITE_OK);
  EXPECT_GE(WalSize() / kFrameSize, 3000);

  // The files as a process killed now leaves them (the page cache kept,
  // nothing synced): the commit is all there. SQLite rewrote the checksums
  // of the frames it overwrote in place, the commit frame's header last and
  // with no page after it; recovery needs every one of them.
  const std::string image = dir_.File("killed.db");
  ASSERT_EQ(faults_.CrashImage(path_, image), 0);
  {
    Db killed(image, "");
    EXPECT_EQ(killed.Value("SELECT count(*) || ' ' || sum(length(v)) FROM t"), "3010 9030000");
  }

  // Another connection, and the file reopened without the shim, read it all.
  Db reader(path_, vfs_);
  EXPECT_EQ(reader.Value("SELECT count(*) || ' ' || sum(length(v)) FROM t"), "3010 9030000");
  writer_.reset();
  Db plain(path_, "");
  EXPECT_EQ(plain.Value("SELECT count(*) || ' ' || sum(length(v)) FROM t"), "3010 9030000");
  EXPECT_EQ(plain.Value("PRAGMA integrity_check"), "ok");
}

TEST_F(WalWriteVfsTest, AFailedWriteFailsTheCommitAndTheNextOneSucceeds) {
  ASSERT_EQ(InsertRows(*writer_, 5, 1000), SQLITE_OK);
  faults_.Inject(FaultOp::kWrite, FaultFile::kWal, SQLITE_FULL, 1);
  ASSERT_EQ(writer_->Exec("BEGIN"), SQLITE_OK);
  ASSERT_EQ(InsertRows(*writer_, 5, 1000), SQLITE_OK);
  // The frames went to the WAL only at the commit, whose write failed.
  EXPECT_EQ(writer_->Exec("COMMIT"), SQLITE_FULL);
  EXPECT_EQ(faults_.injected(), 1);
  writer_->Exec("ROLLBACK");

  Db reader(path_, vfs_);
  EXPECT_EQ(reader.Value("SELECT count(*) FROM t"), "5");
  ASSERT_EQ(InsertRows(*writer_, 5, 1000), SQLITE_OK);
  EXPECT_EQ(reader.Value("SELECT count(*) FROM t"), "10");
  EXPECT_EQ(reader.Value("PRAGMA integrity_check"), "ok");
}

TEST_F(WalWriteVfsTest, APowerCutKeepsWhatTheWalSyncCoveredAndNothingAfter) {
  faults_.TrackUnsyncedWrites(true);
  ASSERT_EQ(InsertRows(*writer_, 20, 1000), SQLITE_OK);
  // What WalSync does: the writer's WAL file's xSync, here from this thread.
  sqlite3_file* wal = writer_->Wal();
  ASSERT_NE(wal, nullptr);
  ASSERT_EQ(wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL), SQLITE_OK);
  ASSERT_EQ(InsertRows(*writer_, 30, 1000), SQLITE_OK);  // committed, not synced

  const std::string image = dir_.File("image.db");
  ASSERT_GT(faults_.CrashImage(path_, image), 0);
  faults_.TrackUnsyncedWrites(false);
  Db recovered(image, "");
  EXPECT_EQ(recovered.Value("SELECT count(*) FROM t"), "20");
  EXPECT_EQ(recovered.Value("PRAGMA integrity_check"), "ok");
}

TEST(WalWriteVfsNameTest, AnUnknownVfsUnderneathIsAnError) {
  EXPECT_FALSE(WalWriteVfs("no-such-vfs").ok());
  auto name = WalWriteVfs("");
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, *WalWriteVfs(""));  // registered once
  EXPECT_NE(sqlite3_vfs_find(name->c_str()), nullptr);
}

}  // namespace
}  // namespace redrive::store::sqlite
