// The SQLite schema, as an ordered list of migrations, and the function that
// brings a database up to date. Each migration is applied once, recorded in
// schema_migrations(version, applied_at), never edited after release: a
// schema change is a new migration appended to the list. The migrations'
// SQL is in sqlite_schema.cc, Migrate and SchemaVersion in migrate.cc.
#pragma once

#include <span>

#include "core/status.h"
#include "store/sqlite/connection.h"

namespace redrive::store::sqlite {

struct Migration {
  int version;       // 1, 2, ... in order, without gaps
  const char* name;  // for humans
  const char* sql;   // a script of statements
  // Then, for a change SQL alone cannot make (e.g. re-encoding rows), this
  // function on the same connection, in the same transaction; nullptr: none.
  Status (*then)(Connection&) = nullptr;
};

// Every migration this binary knows, in order.
std::span<const Migration> Migrations();

// Applies the missing migrations of `migrations` in order, all in one
// transaction: either the schema is fully upgraded or unchanged. Refuses
// (SERVICE_UNAVAILABLE) a database whose version is newer than this binary
// knows. REQUIRES: `conn` is the writer and no transaction is open.
Status Migrate(Connection& conn, std::span<const Migration> migrations = Migrations());

// The highest applied version (0 for a new database).
Result<int> SchemaVersion(Connection& conn);

}  // namespace redrive::store::sqlite
