// Applying the migrations of pg_schema.cc: one transaction under an
// advisory lock, each applied version recorded in redrive.schema_migrations.
#include <string>

#include "core/clock.h"
#include "store/postgres/pg_schema.h"
#include "store/schema_version.h"

namespace redrive::store::postgres {
namespace {

constexpr char kCreateMigrationsTable[] =
    "CREATE SCHEMA IF NOT EXISTS redrive;"
    "CREATE TABLE IF NOT EXISTS redrive.schema_migrations ("
    "  version integer PRIMARY KEY,"
    "  applied_at bigint NOT NULL)";  // microseconds since the Unix epoch

// Ends the transaction and returns `why`.
Status Rollback(PgConnection& conn, Status why) {
  if (conn.InTransaction()) (void)conn.Exec("ROLLBACK");
  return why;
}

Result<int> CurrentVersion(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(
      PgResult r, conn.Exec("SELECT coalesce(max(version), 0) FROM redrive.schema_migrations"));
  return r.Int(0, 0);
}

}  // namespace

Result<int> PgSchemaVersion(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(
      PgResult exists, conn.Exec("SELECT to_regclass('redrive.schema_migrations') IS NOT NULL"));
  if (!exists.Bool(0, 0)) return 0;
  return CurrentVersion(conn);
}

Status PgMigrate(PgConnection& conn, std::span<const PgMigration> migrations) {
  // Every node runs this at start-up, perhaps at the same moment. The lock
  // makes the others wait here until the first has committed; they then
  // read its version and apply nothing. (CREATE ... IF NOT EXISTS alone
  // races: two sessions can both find the schema absent.)
  REDRIVE_RETURN_IF_ERROR(conn.Exec("BEGIN").status());
  Status st =
      conn.Exec("SELECT pg_advisory_xact_lock(" + std::to_string(kMigrationLockKey) + ")").status();
  if (st.ok()) st = conn.Exec(kCreateMigrationsTable).status();
  if (!st.ok()) return Rollback(conn, st);
  Result<int> current = CurrentVersion(conn);
  if (!current.ok()) return Rollback(conn, current.status());
  int latest = migrations.empty() ? 0 : migrations.back().version;
  if (*current > latest) {
    return Rollback(conn, NewerSchemaThanBinary(*current, latest));
  }
  // applied_at is audit metadata for operators, not job time.
  const int64_t applied_at = ToMicros(SystemClock().Now());
  for (const PgMigration& m : migrations) {
    if (m.version <= *current) continue;
    st = conn.Exec(m.sql).status();
    if (!st.ok()) {
      return Rollback(conn, Status(st.code(), "migration " + std::to_string(m.version) + " (" +
                                                  m.name + "): " + st.message()));
    }
    PgParams params;
    params.Add(m.version);
    params.Add(applied_at);
    st = conn.ExecParams(
                 "INSERT INTO redrive.schema_migrations (version, applied_at) VALUES ($1, $2)",
                 params)
             .status();
    if (!st.ok()) return Rollback(conn, st);
  }
  st = conn.Exec("COMMIT").status();
  if (!st.ok()) return Rollback(conn, st);
  return Status::Ok();
}

}  // namespace redrive::store::postgres
