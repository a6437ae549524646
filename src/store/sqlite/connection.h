// Connection: one SQLite database handle with the pragmas Redrive relies on
// and a cache of prepared statements, so the hot paths (claim, ack) never
// re-parse SQL.
//
// Thread-safety: none. A Connection is used by one thread at a time (the
// writer under SqliteStore's writer mutex; a reader while a ReadTx owns it);
// it is opened in SQLite's multi-thread mode, so it may move between threads.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/status.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite {

struct ConnectionOptions {
  std::chrono::milliseconds busy_timeout{5000};
  // The writer creates the file and switches it to WAL; readers refuse writes.
  bool writer = false;
  // FULL: COMMIT fsyncs the WAL. false (the pipelined store's writer,
  // wal_sync.h): synchronous=NORMAL, COMMIT only appends to the WAL and the
  // store syncs it apart.
  bool sync_each_commit = true;
  // The SQLite VFS to open the file with, under the WAL write shim
  // (wal_write_vfs.h); empty: the default. Tests name a fault-injecting
  // shim here (fault_vfs_test_util.h).
  std::string vfs;
};

// How long a connection that found the file locked sleeps before trying
// again (`attempt` 0 is the first retry), having waited `waited` so far; none
// once `waited` reached `timeout`, and the statement fails SQLITE_BUSY. The
// locks met here are short: another connection's commit and its fsync (the
// duty-lease renewals, a few hundred microseconds). SQLite's own handler
// (sqlite3_busy_timeout) sleeps 1 ms at once, then 2, 5, 10 ms, so the
// committer lost a millisecond to each renewal it met; this one starts at
// 25 µs and doubles to 1 ms.
std::optional<std::chrono::microseconds> BusyRetryDelay(int attempt,
                                                        std::chrono::microseconds waited,
                                                        std::chrono::microseconds timeout);

class Connection {
 public:
  // Opens `path` and applies the pragmas: WAL (writer; a reader checks it),
  // synchronous (FULL, or NORMAL: sync_each_commit), foreign_keys, and
  // query_only for readers; and the busy wait (OnBusy, up to busy_timeout).
  // A file that is not a database is reported as SERVICE_UNAVAILABLE.
  static Result<std::unique_ptr<Connection>> Open(const std::string& path,
                                                  const ConnectionOptions& options);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // A statement for `sql` (one statement), prepared once per connection and
  // reused. If the cached one is still in use (a nested query with the same
  // text), a private one is prepared and finalized after use.
  Result<Statement> Prepare(std::string_view sql);
  // Prepares (cached) and runs one statement that returns no rows.
  Status Exec(std::string_view sql);
  // Runs a script of several statements, uncached (migrations, set-up).
  Status ExecScript(const std::string& sql);

  // True while a transaction is open. SQLite rolls a transaction back by
  // itself after some errors (e.g. disk full); callers check this before
  // trusting their own bookkeeping.
  bool InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

  sqlite3* db() const { return db_; }

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  Status ApplyPragmas(const ConnectionOptions& options);
  // SQLite's busy handler: sleeps BusyRetryDelay, or gives up (returns 0).
  static int OnBusy(void* self, int attempt);
  // Registers the SQL functions the store's statements use (compact_id,
  // id_text: see connection.cc).
  Status RegisterFunctions();

  struct Cached {
    sqlite3_stmt* stmt = nullptr;
    bool in_use = false;
  };
  // Transparent hashing: lookups by string_view allocate nothing.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  sqlite3* db_;
  std::chrono::microseconds busy_timeout_{0};
  // When the current wait for a lock began (OnBusy's attempt 0).
  std::chrono::steady_clock::time_point busy_since_;
  // Node-based, so &Cached::in_use stays valid while a Statement holds it.
  std::unordered_map<std::string, Cached, Hash, std::equal_to<>> cache_;
};

}  // namespace redrive::store::sqlite
