// The SQL of the job queries, in one place, so the plan tests
// (pg_plan_test.cc) check the very text the store runs. Parameters are
// $1, $2, ... in the order the comment of each query gives. Selects of a
// write transaction lock what they return (store.h, the locking contract).
#pragma once

#include <string>
#include <string_view>

#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_job_columns.h"
#include "store/store.h"

namespace redrive::store::postgres::sql {

// Every column of a job, in kPgJobColumns order (checked at compile time in
// pg_job_sql.cc).
#define REDRIVE_PG_JOB_COLUMNS                                                             \
  "id, queue_name, status, payload, result, priority, retry_count, max_retries, "          \
  "timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error, "      \
  "dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at, " \
  "completed_at, expires_at, deadlettered_at, assigned_worker_id, lease_id, "              \
  "lease_expires_at, attempts, lease_expiries, crash_count, crash_limit, snooze_count, "   \
  "max_snoozes, completion_webhook, error_fingerprint"
// The same with payload and result left empty (summaries: large payloads
// are not even read from their TOAST table).
#define REDRIVE_PG_JOB_SUMMARY_COLUMNS                                                     \
  "id, queue_name, status, '', NULL, priority, retry_count, max_retries, "                 \
  "timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error, "      \
  "dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at, " \
  "completed_at, expires_at, deadlettered_at, assigned_worker_id, lease_id, "              \
  "lease_expires_at, attempts, lease_expiries, crash_count, crash_limit, snooze_count, "   \
  "max_snoozes, completion_webhook, error_fingerprint"

#define REDRIVE_PG_HISTORY_COLUMNS "id, job_id, event_type, worker_id, details, created_at, node_id"

// $1 id.
inline constexpr char kGetJob[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS " FROM redrive.jobs WHERE id = $1";
// $1 a text[] of ids. Locked in id order: two callers never deadlock.
inline constexpr char kGetJobs[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS " FROM redrive.jobs WHERE id = ANY($1::text[])";
inline constexpr char kGetJobsForUpdate[] = "SELECT " REDRIVE_PG_JOB_COLUMNS
                                            " FROM redrive.jobs WHERE id = ANY($1::text[])"
                                            " ORDER BY id FOR UPDATE";
// $1 id: one row of a few kGetJobsForUpdate sends one by one.
inline constexpr char kGetJobForUpdate[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS " FROM redrive.jobs WHERE id = $1 FOR UPDATE";
// $1 key.
inline constexpr char kFindIdempotencyKey[] =
    "SELECT id FROM redrive.jobs WHERE idempotency_key = $1";
// $1 text[] of keys: (key, id) of those taken.
inline constexpr char kFindIdempotencyKeys[] =
    "SELECT idempotency_key, id FROM redrive.jobs WHERE idempotency_key = ANY($1::text[])";

// Inserts a job and its "created" history entry in one statement:
// $1..$n every column (kPgAllColumns, as BindPgColumns binds them), then
// the entry's id, event_type, worker_id, details, created_at. A job whose
// idempotency key is taken inserts nothing (no row returned); under READ
// COMMITTED, ON CONFLICT first waits for a transaction inserting the same
// key and then sees its row.
std::string_view InsertJobSql();

// The guarded write of a Change: assigns the columns in `changed` (plus
// updated_at), $1..$m in table order, where the row still has id $m+1,
// status $m+2 and lease_id $m+3 (NULL: no lease). With `history`, also
// inserts the entry ($m+4.. id, event_type, worker_id, details, created_at)
// in the same statement, and the result has one row per job written;
// without, affected() counts them. The text of each (columns, history)
// pair is built once.
std::string_view UpdateJobSql(PgColumnSet changed, bool history);
// The set-based forms, one statement for many rows (a bulk enqueue, the
// changes of a batch of claims or acks): each parameter is an array with
// one element per row, in the order of the one-row form's parameters; the
// result has the id of each job written (inserted; updated, its guard
// holding), and each written job's history entry is inserted too. A job id
// must not occur twice in one update.
std::string_view InsertJobsSql();
std::string_view UpdateJobsSql(PgColumnSet changed, bool history);
// The same writes, for when the guard is known to hold (the rows are locked
// by this transaction as they were read): the result is one row, and a
// guard that failed all the same (for any row of the set-based form) is a
// division by zero, an error that aborts the transaction. So the statement
// can be deferred and sent in one pipeline with the COMMIT, which then does
// not run (PgConnection::Defer).
std::string_view CheckedUpdateJobSql(PgColumnSet changed, bool history);
std::string_view CheckedUpdateJobsSql(PgColumnSet changed, bool history);
// The first parameter after the assigned columns of UpdateJobSql(changed, ...).
int GuardParam(PgColumnSet changed);
// The columns UpdateJobSql(changed, ...) assigns.
PgColumnSet AssignedColumns(PgColumnSet changed);

// $1 job id.
inline constexpr char kGetHistory[] = "SELECT " REDRIVE_PG_HISTORY_COLUMNS
                                      " FROM redrive.job_history WHERE job_id = $1"
                                      " ORDER BY created_at, seq";

// $1 ids (text[]); the result is the count of jobs deleted. Their history
// goes with them (in the same statement: job_history has no foreign key,
// whose per-row check would cost every history insert a lookup).
// Returns how many of each (queue, status) went, for job_counts.
inline constexpr char kDeleteJobs[] =
    "WITH d AS (DELETE FROM redrive.jobs WHERE id = ANY($1::text[])"
    " RETURNING id, queue_name, status),"
    " h AS (DELETE FROM redrive.job_history WHERE job_id IN (SELECT id FROM d))"
    " SELECT queue_name, status, count(*) FROM d GROUP BY queue_name, status";
// $1 queue. With their history, as kDeleteJobs, and the same result.
inline constexpr char kDeleteQueueJobs[] =
    "WITH d AS (DELETE FROM redrive.jobs WHERE queue_name = $1 RETURNING id, queue_name, status),"
    " h AS (DELETE FROM redrive.job_history WHERE job_id IN (SELECT id FROM d))"
    " SELECT queue_name, status, count(*) FROM d GROUP BY queue_name, status";

// $1 queue, $2 now, $3 limit. Walks jobs_claim in its order (no sort).
inline constexpr char kSelectClaimable[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE status = 'pending' AND queue_name = $1"
    " AND (expires_at IS NULL OR expires_at > $2)"
    " ORDER BY priority DESC, created_at, id LIMIT $3 FOR UPDATE SKIP LOCKED";
// $1 now, $2 limit.
inline constexpr char kSelectDueScheduled[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE status = 'scheduled' AND scheduled_at <= $1"
    " ORDER BY scheduled_at LIMIT $2 FOR UPDATE SKIP LOCKED";
// $1 now, $2 limit, $3 queue.
inline constexpr char kSelectDueScheduledInQueue[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE status = 'scheduled' AND scheduled_at <= $1 AND queue_name = $3"
    " ORDER BY scheduled_at LIMIT $2 FOR UPDATE SKIP LOCKED";
// $1 now, $2 limit. The condition is evaluated again on the newest version
// of each row it locks: a lease a heartbeat has just extended is not
// returned.
inline constexpr char kSelectExpiredLeases[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE status = 'processing' AND lease_expires_at <= $1"
    " ORDER BY lease_expires_at LIMIT $2 FOR UPDATE SKIP LOCKED";
// $1 now, $2 limit.
inline constexpr char kSelectPastDeadline[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL"
    " AND expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED";
// $1 worker, $2 limit.
inline constexpr char kSelectHeldBy[] =
    "SELECT " REDRIVE_PG_JOB_COLUMNS
    " FROM redrive.jobs WHERE status = 'processing' AND assigned_worker_id = $1"
    " LIMIT $2 FOR UPDATE SKIP LOCKED";
// $1 queue, $2 status, $3 before, $4 limit.
inline constexpr char kSelectRetentionExpired[] =
    "SELECT id FROM redrive.jobs WHERE queue_name = $1 AND status = $2"
    " AND completed_at IS NOT NULL AND completed_at < $3 ORDER BY completed_at LIMIT $4"
    " FOR UPDATE SKIP LOCKED";

// Counting reads job_counts (pg_schema.cc, version 24): a few rows per queue
// and status (one per shard written), whatever the number of jobs.
inline constexpr char kCountAll[] =
    "SELECT status, sum(n)::bigint FROM redrive.job_counts GROUP BY status";
// $1 queue.
inline constexpr char kCountQueue[] =
    "SELECT status, sum(n)::bigint FROM redrive.job_counts WHERE queue_name = $1 GROUP BY status";
// $1 queues, $2 statuses, $3 deltas (text[]; one element per distinct
// (queue, status)): added to this backend's shard, in key order, so two
// transactions of one shard never wait for each other in opposite orders.
inline constexpr char kAddToCounts[] =
    "INSERT INTO redrive.job_counts AS c (queue_name, status, shard, n)"
    " SELECT q, s, pg_backend_pid() % 64, d::bigint"
    " FROM unnest($1::text[], $2::text[], $3::text[]) AS t(q, s, d) ORDER BY q, s"
    " ON CONFLICT (queue_name, status, shard) DO UPDATE SET n = c.n + excluded.n";
// $1 queue. A deleted queue's counters that are zero (no row and a zero row
// mean the same; a shard's row may be non-zero while the queue's sum is).
inline constexpr char kDeleteEmptyCounts[] =
    "DELETE FROM redrive.job_counts WHERE queue_name = $1 AND n = 0";

// $1 queue.
inline constexpr char kOldestDeadletter[] =
    "SELECT deadlettered_at FROM redrive.jobs WHERE status = 'deadletter' AND queue_name = $1"
    " ORDER BY deadlettered_at LIMIT 1";
// One step of jobs_listing per status; least() skips a status with none.
inline constexpr char kOldestWaiting[] =
    "SELECT least("
    "(SELECT created_at FROM redrive.jobs WHERE queue_name = $1 AND status = 'pending'"
    " ORDER BY created_at LIMIT 1),"
    " (SELECT created_at FROM redrive.jobs WHERE queue_name = $1 AND status = 'scheduled'"
    " ORDER BY created_at LIMIT 1))";
inline constexpr char kNextScheduled[] =
    "SELECT scheduled_at FROM redrive.jobs WHERE status = 'scheduled'"
    " ORDER BY scheduled_at LIMIT 1";
inline constexpr char kNextLeaseExpiry[] =
    "SELECT lease_expires_at FROM redrive.jobs WHERE status = 'processing'"
    " ORDER BY lease_expires_at LIMIT 1";
inline constexpr char kNextDeadline[] =
    "SELECT expires_at FROM redrive.jobs WHERE status IN ('pending','scheduled')"
    " AND expires_at IS NOT NULL ORDER BY expires_at LIMIT 1";

// A query built from the filters that are set (an unset filter adds no
// condition, so the planner can pick the index that fits), with its
// parameters. Text parameters may point into the filter, which must
// outlive the query's execution.
struct BuiltQuery {
  std::string sql;
  PgParams params;
};

// GET /jobs: newest created first.
BuiltQuery ListJobs(const JobFilter& f, bool with_payload);
// GET /jobs/dlq: dead jobs, newest dead first; f.status is ignored.
BuiltQuery ListDeadLetters(const JobFilter& f);
// GET /jobs/dlq/summary: queue_name, dead_reason, error (truncated, may be
// NULL), count, oldest and newest deadlettered_at.
BuiltQuery SummarizeDeadLetters(const JobFilter& f);
// Redrive/purge selection, oldest dead first, with payload, locked FOR
// UPDATE SKIP LOCKED.
BuiltQuery SelectDeadLetters(const DeadLetterSelection& sel);
// How many dead jobs `sel` matches, its limit ignored.
BuiltQuery CountDeadLetters(const DeadLetterSelection& sel);
// A bulk operation's batch among the jobs in `status` (one of sel.statuses:
// the store merges them; locked FOR UPDATE SKIP LOCKED, cursor order), and
// its count.
BuiltQuery SelectJobsAfter(const JobSelection& sel, JobStatus status);
BuiltQuery CountSelectedJobs(const JobSelection& sel);

}  // namespace redrive::store::postgres::sql
