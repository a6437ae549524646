#include "store/sqlite/connection.h"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "core/ids.h"
#include "store/sqlite/sqlite_error.h"
#include "store/sqlite/wal_write_vfs.h"

namespace redrive::store::sqlite {
namespace {

// compact_id(x): how a job id is stored (schema version 29). A UUID in the
// canonical text NewUuidV7 writes (core/ids.h) becomes its 16 bytes, a BLOB;
// any other value is returned as it is (an id that is not such a UUID stays
// TEXT). Every statement binds a job id through it, so the stored form is
// compared with the stored form.
void CompactId(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_TEXT) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    const std::optional<UuidBytes> bytes =
        ParseUuid(std::string_view(text, static_cast<size_t>(sqlite3_value_bytes(argv[0]))));
    if (bytes) {
      sqlite3_result_blob(ctx, bytes->data(), static_cast<int>(bytes->size()), SQLITE_TRANSIENT);
      return;
    }
  }
  sqlite3_result_value(ctx, argv[0]);
}

// id_text(x): the text of a stored job id, the inverse of compact_id: a BLOB
// of 16 bytes as the UUID's canonical text, any other value as it is.
void IdText(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  UuidBytes bytes{};
  if (sqlite3_value_type(argv[0]) == SQLITE_BLOB &&
      sqlite3_value_bytes(argv[0]) == static_cast<int>(bytes.size())) {
    const auto* blob = static_cast<const uint8_t*>(sqlite3_value_blob(argv[0]));
    std::copy(blob, blob + bytes.size(), bytes.begin());
    const std::string text = FormatUuid(bytes);
    sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return;
  }
  sqlite3_result_value(ctx, argv[0]);
}

}  // namespace

std::optional<std::chrono::microseconds> BusyRetryDelay(int attempt,
                                                        std::chrono::microseconds waited,
                                                        std::chrono::microseconds timeout) {
  if (waited >= timeout) return std::nullopt;
  constexpr std::chrono::microseconds kFirst{25};
  constexpr std::chrono::microseconds kLongest{1000};
  const std::chrono::microseconds delay =
      std::min(kLongest, kFirst * (1 << std::clamp(attempt, 0, 6)));
  return std::min(delay, timeout - waited);
}

int Connection::OnBusy(void* self, int attempt) {
  auto* conn = static_cast<Connection*>(self);
  const auto now = std::chrono::steady_clock::now();
  if (attempt == 0) conn->busy_since_ = now;
  const std::optional<std::chrono::microseconds> delay = BusyRetryDelay(
      attempt, std::chrono::duration_cast<std::chrono::microseconds>(now - conn->busy_since_),
      conn->busy_timeout_);
  if (!delay) return 0;
  std::this_thread::sleep_for(*delay);
  return 1;
}

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
  // Every connection writes its WAL through the shim that hands a commit's
  // frames on in one write (wal_write_vfs.h), stacked on the VFS asked for.
  Result<std::string> vfs = WalWriteVfs(options.vfs);
  if (!vfs.ok()) return vfs.status();
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, vfs->c_str());
  if (rc != SQLITE_OK) {
    Status st = SqliteError(db, rc, "opening " + path);
    sqlite3_close(db);  // a handle is allocated even when opening fails
    return st;
  }
  std::unique_ptr<Connection> conn(new Connection(db));
  Status st = conn->RegisterFunctions();
  if (st.ok()) st = conn->ApplyPragmas(options);
  if (!st.ok()) return Status(st.code(), path + ": " + st.message());
  return conn;
}

Connection::~Connection() {
  for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
  sqlite3_close(db_);
}

Status Connection::RegisterFunctions() {
  constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  for (const auto& [name, fn] :
       {std::pair{"compact_id", &CompactId}, std::pair{"id_text", &IdText}}) {
    const int rc =
        sqlite3_create_function_v2(db_, name, 1, kFlags, nullptr, fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return SqliteError(db_, rc, std::string("registering ") + name);
  }
  return Status::Ok();
}

Status Connection::ApplyPragmas(const ConnectionOptions& options) {
  busy_timeout_ = options.busy_timeout;
  sqlite3_busy_handler(db_, &Connection::OnBusy, this);
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
      "PRAGMA temp_store=MEMORY;";
  if (options.writer) {
    // A page cache that holds the hot part of the indexes (the default is
    // 2 MiB), and no memory map: with one, SQLite looks every page up in the
    // WAL index before its own cache (getPageMMap), 4 % of the committer's
    // time in single-job mode (docs/benchmarks.md, "The writer without a
    // memory map"). The writer's cache survives its own commits.
    pragmas += "PRAGMA cache_size=-65536; PRAGMA mmap_size=0;";
  } else {
    // Reads through a shared memory map instead of read() calls: a reader's
    // cache is emptied whenever another connection committed, so most of
    // its pages are fetched again anyway.
    pragmas += "PRAGMA mmap_size=268435456; PRAGMA query_only=ON;";
  }
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
