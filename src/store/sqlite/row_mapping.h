// How a Job, a HistoryEntry, a QueueConfig and a WorkerInfo map to rows:
// the column lists and the code that binds and reads them, kept side by side
// so the order of columns is written down exactly once per table (for jobs,
// the column table of job_columns.h, which the select lists here follow).
#pragma once

#include "core/job.h"
#include "core/queue.h"
#include "core/status.h"
#include "store/sqlite/job_columns.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite {

// Column lists are macros so that queries are single string literals,
// concatenated at compile time (see job_sql.h), with no start-up code.

// A column of job_leases, looked up only for a processing job: the only
// status in which a job holds a lease (SqliteWriteTx checks it at every
// write), so reading the jobs of any other status costs no lookup.
#define REDRIVE_LEASE_COLUMN(name)                     \
  "CASE WHEN status = 'processing' THEN (SELECT " name \
  " FROM job_leases WHERE job_seq = jobs.seq) END"

// Every field of a job, in the order of kJobColumns (job_columns.h), which
// reads them; the compiler checks the two agree (row_mapping.cc). Payload and
// result live in job_payloads, and a lease's fields in job_leases (see
// compact_schema.cc), read by key lookups.
// clang-format off
#define REDRIVE_JOB_COLUMNS                                                              \
  REDRIVE_JOB_ID ", " REDRIVE_JOB_QUEUE ", status, "                                     \
  "(SELECT payload FROM job_payloads WHERE job_seq = jobs.seq), "                        \
  "(SELECT result FROM job_payloads WHERE job_seq = jobs.seq), "                         \
  REDRIVE_JOB_COLUMNS_AFTER_RESULT
// The same, with payload and result replaced by empty values (summaries:
// large payloads are not even read from disk); the lease is read as above.
#define REDRIVE_JOB_SUMMARY_COLUMNS                                                      \
  REDRIVE_JOB_ID ", " REDRIVE_JOB_QUEUE ", status, '', NULL, "                           \
  REDRIVE_JOB_COLUMNS_AFTER_RESULT
// What both lists read after the result.
#define REDRIVE_JOB_COLUMNS_AFTER_RESULT                                                 \
  "priority, retry_count, max_retries, "                                                 \
  "timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error, "    \
  "dead_reason, tags, idempotency_key, created_at, " REDRIVE_JOB_UPDATED_AT ", "         \
  "scheduled_at, started_at, completed_at, expires_at, deadlettered_at, "                \
  REDRIVE_LEASE_COLUMN("assigned_worker_id") ", "                                        \
  REDRIVE_LEASE_COLUMN("lease_id") ", " REDRIVE_LEASE_COLUMN("lease_expires_at") ", "    \
  "attempts, lease_expiries, crash_count, crash_limit, snooze_count, "                   \
  "max_snoozes, completion_webhook, error_fingerprint"
// clang-format on

// Reads a job from the current row, whose columns start at `first` in
// REDRIVE_JOB_COLUMNS order. INTERNAL if a stored value cannot be decoded.
Result<Job> ReadJob(const Statement& stmt, int first = 0);

#define REDRIVE_QUEUE_COLUMNS                                                              \
  "queue_name, max_retries, default_timeout, enabled, paused, paused_reason, "             \
  "backoff_base_ms, backoff_max_ms, backoff_jitter_ms, retention_completed_s, "            \
  "retention_deadletter_s, retention_cancelled_s, created_at, updated_at, redrive_until, " \
  "crash_limit, max_snoozes"
QueueConfig ReadQueue(const Statement& stmt);
void BindQueue(Statement& stmt, const QueueConfig& q);  // ?1..?17

#define REDRIVE_WORKER_COLUMNS                                                          \
  "id, queue_name, hostname, worker_type, max_concurrency, metadata, version, status, " \
  "current_jobs, registered_at, last_heartbeat_at, deregistered_at"
WorkerInfo ReadWorker(const Statement& stmt);
void BindWorker(Statement& stmt, const WorkerInfo& w);  // ?1..?12

}  // namespace redrive::store::sqlite
