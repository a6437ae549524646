// The PostgreSQL schema: every object lives in the schema `redrive` (the
// application's own tables stay apart), created by versioned migrations
// recorded in redrive.schema_migrations.
#pragma once

#include <span>

#include "core/status.h"
#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres {

struct PgMigration {
  int version;
  const char* name;
  const char* sql;  // one or more statements, run in the migration's transaction
};

// Every migration, in version order.
std::span<const PgMigration> PgMigrations();

// The key of the transaction-level advisory lock Migrate holds, so nodes
// starting at once apply each migration exactly once.
inline constexpr long long kMigrationLockKey = 0x5245445249564531;  // "REDRIVE1"
// The key of the transaction-level advisory lock every creation of a queue
// takes between counting the queues and inserting one (EnsureQueue,
// redrive.enqueue), so that nodes creating queues at once never pass
// --max-queues together.
inline constexpr long long kQueueCreationLockKey = 0x5245445249564532;  // "REDRIVE2"
// Likewise for webhooks (InsertWebhook) and --max-webhooks.
inline constexpr long long kWebhookCreationLockKey = 0x5245445249564534;  // "REDRIVE4"
// The same for schedules: a write transaction's CountSchedules takes it, so
// nodes creating schedules at once never pass --max-schedules together.
inline constexpr long long kScheduleCreationLockKey = 0x5245445249564533;  // "REDRIVE3"

// Applies the migrations not yet recorded, in one transaction under the
// advisory lock. UNAVAILABLE if the database is newer than `migrations`.
// REQUIRES: `conn` is not inside a transaction.
Status PgMigrate(PgConnection& conn, std::span<const PgMigration> migrations = PgMigrations());

// The highest version recorded (0 for an empty database).
Result<int> PgSchemaVersion(PgConnection& conn);

}  // namespace redrive::store::postgres
