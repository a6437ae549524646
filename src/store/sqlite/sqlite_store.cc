#include "store/sqlite/sqlite_store.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "store/sqlite/sqlite_leadership.h"
#include "store/sqlite/sqlite_read_tx.h"
#include "store/sqlite/sqlite_schema.h"
#include "store/sqlite/sqlite_write_tx.h"

namespace redrive::store {

using sqlite::Connection;
using sqlite::ConnectionOptions;
using sqlite::SqliteReadTx;
using sqlite::SqliteWriteTx;
using sqlite::Statement;

namespace {

// `writer`: a connection that writes (the store's writer, the checkpointer,
// the leadership). Only the store's own writer commits without an fsync
// (SqliteSync::kPipelined: `sync_each_commit` false); the others, which
// commit rarely or only checkpoint, sync as under FULL.
ConnectionOptions ConnectionOptionsFor(const SqliteOptions& options, bool writer,
                                       bool sync_each_commit = true) {
  ConnectionOptions c;
  c.busy_timeout = options.busy_timeout;
  c.writer = writer;
  c.sync_each_commit = sync_each_commit;
  c.vfs = options.vfs;
  return c;
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const std::string& path,
                                                       SqliteOptions options) {
  if (sqlite3_threadsafe() == 0) {
    return Status::Unavailable("the SQLite library was built without thread support");
  }
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      return Status::Unavailable("cannot create directory " + parent.string() + ": " +
                                 ec.message());
    }
  }
  // The lock before any connection: a refused second server must not touch
  // the file (not even switch it to WAL).
  std::unique_ptr<sqlite::ServerLock> lock;
  if (options.exclusive) {
    REDRIVE_ASSIGN_OR_RETURN(lock, sqlite::ServerLock::Acquire(path));
  }
  const bool pipelined = options.sync == SqliteSync::kPipelined;
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> writer,
                           Connection::Open(path, ConnectionOptionsFor(options, true, !pipelined)));
  std::unique_ptr<SqliteStore> store(
      new SqliteStore(path, options, std::move(lock), std::move(writer)));
  REDRIVE_ASSIGN_OR_RETURN(store->checkpointer_,
                           sqlite::Checkpointer::Start(path, ConnectionOptionsFor(options, true),
                                                       *store->writer_, store->health_));
  return store;
}

SqliteStore::SqliteStore(std::string path, SqliteOptions options,
                         std::unique_ptr<sqlite::ServerLock> lock,
                         std::unique_ptr<Connection> writer)
    : path_(std::move(path)),
      options_(std::move(options)),
      lock_(std::move(lock)),
      writer_(std::move(writer)),
      readers_(path_, ConnectionOptionsFor(options_, false), options_.max_idle_readers) {
  if (options_.sync == SqliteSync::kPipelined)
    wal_sync_ = std::make_unique<sqlite::WalSync>(health_);
}

SqliteStore::~SqliteStore() = default;

Result<IntegrityReport> SqliteStore::CheckIntegrity(const Clock& clock,
                                                    std::chrono::milliseconds budget) {
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn,
                           Connection::Open(path_, ConnectionOptionsFor(options_, false)));
  return sqlite::QuickCheck(*conn, clock, budget);
}

namespace {

// The writer's journal mode after asking for `mode` (SQLite answers with the
// mode it is in, which is the old one when the change was refused).
Result<std::string> SetJournalMode(Connection& writer, const char* mode) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt,
                           writer.Prepare(std::string("PRAGMA journal_mode=") + mode));
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Internal("PRAGMA journal_mode returned no row");
  return stmt.String(0);
}

}  // namespace

Status SqliteStore::Migrate() {
  std::lock_guard<std::mutex> lock(writer_mu_);
  REDRIVE_ASSIGN_OR_RETURN(const int version, sqlite::SchemaVersion(*writer_));
  if (version >= sqlite::Migrations().back().version) return MigrateLocked();
  // A migration may rewrite whole tables (version 24 rebuilds jobs). In WAL
  // mode every page of the migrations' one transaction waits in the WAL
  // until it commits, so rebuilding a large store would need free disk
  // twice its size, and each page would be written twice (WAL, then the
  // checkpoint). A rollback journal keeps only the old content of the pages
  // that existed and change, so the migrations run in one: the writer must
  // then be the file's only connection, so the checkpointer's closes
  // meanwhile (after a last checkpoint). If another process has the file
  // open (a `redrive backup`) the switch is refused, or fails busy, and they
  // run in WAL, as before.
  checkpointer_.reset();
  const Result<std::string> mode = SetJournalMode(*writer_, "DELETE");
  Status st = MigrateLocked();
  if (mode.ok() && *mode != "wal") {
    Result<std::string> back = SetJournalMode(*writer_, "WAL");
    if (st.ok() && !back.ok()) st = back.status();
    if (st.ok() && *back != "wal")
      st = Status::Unavailable("cannot switch the database back to WAL mode");
  }
  Result<std::unique_ptr<sqlite::Checkpointer>> checkpointer =
      sqlite::Checkpointer::Start(path_, ConnectionOptionsFor(options_, true), *writer_, health_);
  if (!checkpointer.ok()) return st.ok() ? checkpointer.status() : st;
  checkpointer_ = std::move(*checkpointer);
  return st;
}

Status SqliteStore::MigrateLocked() {
  // Migrations commit on the writer outside any WriteTx: with the pipelined
  // writer, let each COMMIT sync by itself.
  if (!wal_sync_) return sqlite::Migrate(*writer_);
  REDRIVE_RETURN_IF_ERROR(writer_->Exec("PRAGMA synchronous=FULL"));
  Status st = sqlite::Migrate(*writer_);
  REDRIVE_RETURN_IF_ERROR(writer_->Exec("PRAGMA synchronous=NORMAL"));
  return st;
}

Result<std::unique_ptr<ReadTx>> SqliteStore::BeginRead() {
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<SqliteReadTx> tx, SqliteReadTx::Begin(readers_));
  return std::unique_ptr<ReadTx>(std::move(tx));
}

Result<std::unique_ptr<WriteTx>> SqliteStore::BeginWrite() {
  std::unique_lock<std::mutex> lock(writer_mu_);
  REDRIVE_ASSIGN_OR_RETURN(
      std::unique_ptr<SqliteWriteTx> tx,
      SqliteWriteTx::Begin(*writer_, std::move(lock), health_, wal_sync_.get()));
  return std::unique_ptr<WriteTx>(std::move(tx));
}

Status SqliteStore::Ping() {
  // A store whose commits fail is not ready, though it still reads.
  REDRIVE_RETURN_IF_ERROR(health_.Check());
  // Reads the schema version from the file itself, so a vanished or broken
  // database is noticed, not just a live handle.
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, readers_.Acquire());
  Status st;
  {
    Result<Statement> stmt = conn->Prepare("SELECT count(*) FROM schema_migrations");
    st = stmt.ok() ? stmt->Run() : stmt.status();
  }
  readers_.Release(std::move(conn));
  return st;
}

uint64_t SqliteStore::CommitMark() const { return wal_sync_ ? wal_sync_->Mark() : 0; }

Result<uint64_t> SqliteStore::SyncCommits() {
  if (!wal_sync_) return uint64_t{0};
  return wal_sync_->Sync();
}

Result<std::unique_ptr<Leadership>> SqliteStore::NewLeadership(const std::string& node_id) {
  REDRIVE_ASSIGN_OR_RETURN(
      std::unique_ptr<sqlite::SqliteLeadership> leadership,
      sqlite::SqliteLeadership::Open(path_, ConnectionOptionsFor(options_, true), node_id,
                                     std::chrono::duration_cast<Micros>(options_.duty_lease_ttl),
                                     health_));
  return std::unique_ptr<Leadership>(std::move(leadership));
}

std::string SqliteStore::Describe() const {
  return std::string("sqlite ") + sqlite3_libversion() +
         (wal_sync_ ? " (WAL, synchronous=NORMAL, WAL synced before each answer) "
                    : " (WAL, synchronous=FULL) ") +
         path_;
}

}  // namespace redrive::store
