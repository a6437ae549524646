#include "store/sqlite/connection.h"

#include <string>
#include <utility>

#include "store/sqlite/sqlite_error.h"

namespace redrive::store::sqlite {

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& path,
                                                     const ConnectionOptions& options) {
  // NOMUTEX: each connection is used by one thread at a time, so SQLite's
  // per-connection mutex would be pure overhead.
  // Memory statistics take a global mutex on every SQLite allocation, which
  // every connection of the process would contend on; nothing reads them.
  // Must run before SQLite initializes itself (the first open).
  static const int kConfigured = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)kConfigured;
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE;
  if (options.writer) flags |= SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags,
                           options.vfs.empty() ? nullptr : options.vfs.c_str());
  if (rc != SQLITE_OK) {
    Status st = SqliteError(db, rc, "opening " + path);
    sqlite3_close(db);  // a handle is allocated even when opening fails
    return st;
  }
  std::unique_ptr<Connection> conn(new Connection(db));
  Status st = conn->ApplyPragmas(options);
  if (!st.ok()) return Status(st.code(), path + ": " + st.message());
  return conn;
}

Connection::~Connection() {
  for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
  sqlite3_close(db_);
}

Status Connection::ApplyPragmas(const ConnectionOptions& options) {
  sqlite3_busy_timeout(db_, static_cast<int>(options.busy_timeout.count()));
  // The first statement reads the file header, so a file that is not a
  // database fails here with SQLITE_NOTADB rather than on first use.
  Result<Statement> mode =
      Prepare(options.writer ? "PRAGMA journal_mode=WAL" : "PRAGMA journal_mode");
  if (!mode.ok()) return mode.status();
  Result<bool> row = mode->Step();
  if (!row.ok()) return row.status();
  // A reader on a fresh file may see "delete" until the writer has switched;
  // the writer always opens first (SqliteStore::Open), so insist only there.
  if (options.writer && (!*row || mode->Text(0) != "wal")) {
    return Status::Unavailable("cannot switch the database to WAL mode");
  }
  // FULL: in WAL mode the WAL is fsync'd at every commit, so a committed
  // transaction survives power loss — the contract's durability rule.
  // NORMAL (the pipelined writer): COMMIT appends to the WAL without an
  // fsync and the store syncs the WAL before anyone is answered
  // (wal_sync.h); checkpoints still sync as under FULL.
  std::string pragmas =
      options.sync_each_commit ? "PRAGMA synchronous=FULL;" : "PRAGMA synchronous=NORMAL;";
  pragmas +=
      "PRAGMA foreign_keys=ON;"
      // Reads through a shared memory map instead of read() calls, and a page
      // cache that holds the hot part of the indexes (the default is 2 MiB).
      "PRAGMA mmap_size=268435456;"
      "PRAGMA temp_store=MEMORY;";
  if (options.writer) pragmas += "PRAGMA cache_size=-65536;";
  if (!options.writer) pragmas += "PRAGMA query_only=ON;";
  return ExecScript(pragmas);
}

Result<Statement> Connection::Prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end() && !it->second.in_use) {
    it->second.in_use = true;
    return Statement(it->second.stmt, &it->second.in_use);
  }
  bool cache_it = it == cache_.end();
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              cache_it ? SQLITE_PREPARE_PERSISTENT : 0, &stmt, nullptr);
  if (rc != SQLITE_OK) return SqliteError(db_, rc, "preparing " + std::string(sql));
  if (!cache_it) return Statement(stmt, nullptr);
  auto [inserted, _] = cache_.emplace(std::string(sql), Cached{stmt, true});
  return Statement(stmt, &inserted->second.in_use);
}

Status Connection::Exec(std::string_view sql) {
  Result<Statement> stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return stmt->Run();
}

Status Connection::ExecScript(const std::string& sql) {
  char* error = nullptr;
  int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc == SQLITE_OK) return Status::Ok();
  sqlite3_free(error);  // the same text is available from sqlite3_errmsg
  return SqliteError(db_, rc, "executing script");
}

}  // namespace redrive::store::sqlite
