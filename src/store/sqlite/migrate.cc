// Applying the migrations of sqlite_schema.cc: Migrate and SchemaVersion
// (sqlite_schema.h). The schema itself, the SQL of each version, is in
// sqlite_schema.cc.
#include <span>
#include <string>

#include "core/clock.h"
#include "store/schema_version.h"
#include "store/sqlite/sqlite_schema.h"

namespace redrive::store::sqlite {
namespace {

constexpr char kCreateMigrationsTable[] =
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "  version INTEGER PRIMARY KEY,"
    "  applied_at INTEGER NOT NULL"  // microseconds since the Unix epoch
    ") STRICT";

Status Rollback(Connection& conn, Status why) {
  if (conn.InTransaction()) conn.Exec("ROLLBACK");
  return why;
}

// Every reference to a missing row, as an error naming the first one
// (PRAGMA foreign_key_check: table, rowid, parent, fkid).
Status CheckForeignKeys(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement check, conn.Prepare("PRAGMA foreign_key_check"));
  REDRIVE_ASSIGN_OR_RETURN(bool dangling, check.Step());
  if (!dangling) return Status::Ok();
  return Status::Internal("the migrations left a row of " + check.String(0) +
                          " referencing a missing row of " + check.String(2));
}

// Migrate's body, with foreign keys off: applies the missing migrations and
// commits only if no row then references one that does not exist.
Status MigrateInOneTransaction(Connection& conn, std::span<const Migration> migrations) {
  // IMMEDIATE: another process migrating the same file waits for us (busy
  // timeout) and then sees the upgraded version instead of racing.
  REDRIVE_RETURN_IF_ERROR(conn.Exec("BEGIN IMMEDIATE"));
  Result<int> current = SchemaVersion(conn);
  if (!current.ok()) return Rollback(conn, current.status());
  int latest = migrations.empty() ? 0 : migrations.back().version;
  if (*current > latest) {
    return Rollback(conn, NewerSchemaThanBinary(*current, latest));
  }
  // applied_at is audit metadata for operators, not job time, so reading
  // the system clock here does not break the "time is passed in" rule.
  int64_t applied_at = ToMicros(SystemClock().Now());
  bool applied_any = false;
  for (const Migration& m : migrations) {
    if (m.version <= *current) continue;
    applied_any = true;
    Status st = conn.ExecScript(m.sql);
    if (st.ok() && m.then != nullptr) st = m.then(conn);
    if (!st.ok()) {
      return Rollback(conn, Status(st.code(), "migration " + std::to_string(m.version) + " (" +
                                                  m.name + "): " + st.message()));
    }
    Result<Statement> record =
        conn.Prepare("INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)");
    if (!record.ok()) return Rollback(conn, record.status());
    record->Bind(1, m.version);
    record->Bind(2, applied_at);
    st = record->Run();
    if (!st.ok()) return Rollback(conn, st);
  }
  if (applied_any) {
    Status refs = CheckForeignKeys(conn);
    if (!refs.ok()) return Rollback(conn, refs);
  }
  Status st = conn.Exec("COMMIT");
  if (!st.ok()) return Rollback(conn, st);
  return Status::Ok();
}

}  // namespace

Result<int> SchemaVersion(Connection& conn) {
  REDRIVE_RETURN_IF_ERROR(conn.Exec(kCreateMigrationsTable));
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt,
                           conn.Prepare("SELECT coalesce(max(version), 0) FROM schema_migrations"));
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.Int(0) : 0;
}

Status Migrate(Connection& conn, std::span<const Migration> migrations) {
  // A migration may rebuild a table others reference (version 24 rebuilds
  // jobs). With foreign keys on, dropping the old table would first delete
  // its rows and cascade to every row that references them, so, as SQLite
  // documents for a rebuild, they are off while the migrations run (the
  // pragma is a no-op inside a transaction, hence here) and every
  // reference is checked before COMMIT (MigrateInOneTransaction).
  REDRIVE_ASSIGN_OR_RETURN(Statement fk, conn.Prepare("PRAGMA foreign_keys"));
  REDRIVE_ASSIGN_OR_RETURN(bool fk_row, fk.Step());
  const bool fk_on = fk_row && fk.Int(0) != 0;
  if (fk_on) REDRIVE_RETURN_IF_ERROR(conn.Exec("PRAGMA foreign_keys = OFF"));
  Status st = MigrateInOneTransaction(conn, migrations);
  if (fk_on) {
    Status on = conn.Exec("PRAGMA foreign_keys = ON");
    if (st.ok()) st = on;
  }
  return st;
}

}  // namespace redrive::store::sqlite
