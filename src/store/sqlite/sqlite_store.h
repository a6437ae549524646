// SqliteStore: the embedded, default Store — one SQLite file in WAL mode.
//
// Concurrency: one writer connection, used by one WriteTx at a time (a mutex
// serializes BeginWrite callers of this process; BEGIN IMMEDIATE and the busy
// timeout serialize other processes), and a pool of reader connections, one
// per concurrent ReadTx, which in WAL mode read a consistent snapshot without
// blocking or being blocked by the writer.
//
// Durability: WriteTx::Commit returns only after the write-ahead log is
// fsync'd. How (SqliteOptions::sync): kPipelined (the default) commits with
// synchronous=NORMAL and syncs the WAL apart (sqlite/wal_sync.h), so the
// group committer can run its next batch during the fsync
// (CommitWithoutSync, SyncCommits); kFull lets every COMMIT fsync.
//
// Thread-safety: all methods are thread-safe. Every ReadTx and WriteTx must
// be destroyed before the store.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "store/sqlite/checkpointer.h"
#include "store/sqlite/commit_health.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/integrity_check.h"
#include "store/sqlite/read_connection_pool.h"
#include "store/sqlite/server_lock.h"
#include "store/sqlite/wal_sync.h"
#include "store/store.h"

// Public: the app names these. The helpers live in redrive::store::sqlite.
namespace redrive::store {

// How a SqliteStore makes its commits durable (see SqliteStore).
enum class SqliteSync { kPipelined, kFull };

struct SqliteOptions {
  SqliteSync sync = SqliteSync::kPipelined;
  // How long a statement waits for another process's lock before failing
  // with SERVICE_UNAVAILABLE.
  std::chrono::milliseconds busy_timeout{5000};
  // Idle reader connections kept open for the next BeginRead.
  size_t max_idle_readers = 8;
  // How long a duty lease lasts after its holder last renewed it: a node
  // that dies is replaced this long after its last renewal. Several times
  // the interval at which holders renew (the background loop asks at least
  // once a second; a hold is rewritten after a third of this).
  std::chrono::milliseconds duty_lease_ttl{5000};
  // One server per file: hold the exclusive lock on `<path>.lock`
  // (sqlite/server_lock.h) while the store is open, and fail Open if
  // another process holds it. `redrive serve` sets it; tests that open one
  // file twice in a process (two "nodes") leave it off.
  bool exclusive = false;
  // The SQLite VFS of every connection; empty: the default. For tests
  // (sqlite/fault_vfs_test_util.h).
  std::string vfs;
};

class SqliteStore final : public Store {
 public:
  // Opens (creating it and its parent directories if needed) the database
  // at `path`. A file that cannot be opened, is not a database or cannot use
  // WAL is a SERVICE_UNAVAILABLE Status naming the file, never an exception.
  // Call Migrate() before anything else.
  static Result<std::unique_ptr<SqliteStore>> Open(const std::string& path,
                                                   SqliteOptions options = {});
  ~SqliteStore() override;

  // PRAGMA quick_check of the file, on a connection of its own, for at most
  // `budget` of `clock` (sqlite/integrity_check.h). Run it at start-up,
  // before Migrate.
  Result<IntegrityReport> CheckIntegrity(const Clock& clock, std::chrono::milliseconds budget);

  StoreTraits traits() const override {
    return {WriteModel::kGroupCommit, 1, wal_sync_ != nullptr};
  }
  Status Migrate() override;
  Result<std::unique_ptr<ReadTx>> BeginRead() override;
  Result<std::unique_ptr<WriteTx>> BeginWrite() override;
  // Also UNAVAILABLE while the latest commit failed, and for good once an
  // fsync failed (sqlite/commit_health.h): readiness follows the disk.
  Status Ping() override;
  uint64_t CommitMark() const override;
  Result<uint64_t> SyncCommits() override;
  Result<std::unique_ptr<Leadership>> NewLeadership(const std::string& node_id) override;
  std::string Describe() const override;

  const std::string& path() const { return path_; }

 private:
  // Migrate's migrations, on the writer. REQUIRES: writer_mu_ held.
  Status MigrateLocked();
  SqliteStore(std::string path, SqliteOptions options, std::unique_ptr<sqlite::ServerLock> lock,
              std::unique_ptr<sqlite::Connection> writer);

  const std::string path_;
  const SqliteOptions options_;
  // Declared first: released last, after every connection is closed.
  std::unique_ptr<sqlite::ServerLock> lock_;  // null unless options_.exclusive
  sqlite::CommitHealth health_;
  std::unique_ptr<sqlite::WalSync> wal_sync_;   // null unless SqliteSync::kPipelined
  std::mutex writer_mu_;                        // held by the live WriteTx, if any
  std::unique_ptr<sqlite::Connection> writer_;  // guarded by writer_mu_
  sqlite::ReadConnectionPool readers_;
  // Declared last so it stops (and unhooks the writer) first.
  std::unique_ptr<sqlite::Checkpointer> checkpointer_;
};

}  // namespace redrive::store
