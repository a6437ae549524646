// How a HistoryEntry, a QueueConfig and a WorkerInfo map to rows of
// redrive.job_history, redrive.queues and redrive.workers: the column lists
// and the code that binds and reads them, side by side so the order of
// columns is written down once per table. (Jobs: pg_job_columns.h.)
#pragma once

#include "core/job.h"
#include "core/queue.h"
#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres {

HistoryEntry ReadPgHistory(const PgResult& r, int row);  // REDRIVE_PG_HISTORY_COLUMNS

#define REDRIVE_PG_QUEUE_COLUMNS                                                           \
  "queue_name, max_retries, default_timeout, enabled, paused, paused_reason, "             \
  "backoff_base_ms, backoff_max_ms, backoff_jitter_ms, retention_completed_s, "            \
  "retention_deadletter_s, retention_cancelled_s, created_at, updated_at, redrive_until, " \
  "crash_limit, max_snoozes"
QueueConfig ReadPgQueue(const PgResult& r, int row);
void BindPgQueue(PgParams& p, const QueueConfig& q);  // $1..$15
// $1 queue_name; never locks (GetQueue).
inline constexpr char kGetPgQueue[] =
    "SELECT " REDRIVE_PG_QUEUE_COLUMNS " FROM redrive.queues WHERE queue_name = $1";

#define REDRIVE_PG_WORKER_COLUMNS                                                       \
  "id, queue_name, hostname, worker_type, max_concurrency, metadata, version, status, " \
  "current_jobs, registered_at, last_heartbeat_at, deregistered_at"
WorkerInfo ReadPgWorker(const PgResult& r, int row);
void BindPgWorker(PgParams& p, const WorkerInfo& w);  // $1..$12
// $1 id; never locks (GetWorker).
inline constexpr char kGetPgWorker[] =
    "SELECT " REDRIVE_PG_WORKER_COLUMNS " FROM redrive.workers WHERE id = $1";
inline constexpr char kGetPgWorkers[] =
    "SELECT " REDRIVE_PG_WORKER_COLUMNS " FROM redrive.workers WHERE id = ANY($1::text[])";

}  // namespace redrive::store::postgres
