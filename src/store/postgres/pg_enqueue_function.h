// Transactional enqueue: redrive.enqueue(...), a SQL function an application
// calls inside its own PostgreSQL transaction, so that a job exists if and
// only if that transaction commits (docs/operations.md, "Transactional
// enqueue"). It writes what an HTTP enqueue writes (the queue if it is new,
// the job, its "created" history entry) under the same rules and limits,
// and wakes long-polling workers of every node when the transaction commits
// (a NOTIFY on the wake channel, which PostgreSQL delivers at commit only).
//
// The function is not a migration: every node installs it at start-up
// (CREATE OR REPLACE, after the migrations and under their lock) from its
// own binary's rules and its configured limits, so it always agrees with
// the server that will run the jobs.
#pragma once

#include <string>

#include "core/limits.h"
#include "core/status.h"
#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres {

// The CREATE OR REPLACE FUNCTION statements (redrive.enqueue and its
// helper redrive.uuid_v7) for `limits`.
std::string EnqueueFunctionSql(const ServerLimits& limits);

// Installs the function in one transaction under the migration lock.
// REQUIRES: the migrations have run; `conn` is not inside a transaction.
Status PgInstallFunctions(PgConnection& conn, const ServerLimits& limits);

}  // namespace redrive::store::postgres
