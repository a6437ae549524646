// The SQL of the job queries, in one place, so the query-plan tests
// (job_sql_plan_test.cc) check the very text the store runs. Fixed queries
// are literals; filtered listings are built from the filters that are set
// (an unset filter adds no condition, so SQLite can pick the index that
// fits; "?1 IS NULL OR col = ?1" would defeat index selection).
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "store/sqlite/job_columns.h"
#include "store/sqlite/row_mapping.h"
#include "store/store.h"

namespace redrive::store::sqlite::sql {

// The statements are laid out by hand: clang-format breaks the macros
// that splice SQL (job_columns.h) as if they were calls.
// clang-format off

inline constexpr char kGetJob[] =
    "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE id = " REDRIVE_JOB_ID_OF("?1");
// ?1 = a JSON array of ids.
inline constexpr char kGetJobs[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs WHERE id IN (SELECT " REDRIVE_JOB_ID_OF("value") " FROM json_each(?1))";
// Inserts a job's row: ?1..?n the columns of jobs (kJobsTableColumns), as
// bound by BindColumns. Its seq (the rowid: sqlite3_last_insert_rowid) keys
// its payload. Built from kJobColumns once.
std::string_view InsertJobSql();
// Inserts its job_payloads row: ?1..?n the kPayloadsColumns, then the job's seq.
std::string_view InsertPayloadsSql();
inline constexpr int kPayloadsJobSeqParam = std::popcount(kPayloadsColumns) + 1;

// A job's lease (its assigned_worker_id, lease_id and lease_expires_at) is
// a row of job_leases that exists exactly while the job is processing: a
// finished job's row in jobs does not grow at its claim and shrink at its
// completion, which left the space of the three in each page it was on
// (docs/benchmarks.md, "Storage: the lease in a table of its own").
// Inserts it: ?1..?n the kLeaseColumns, then the job's seq.
std::string_view InsertLeaseSql();
inline constexpr int kLeaseJobSeqParam = std::popcount(kLeaseColumns) + 1;
// Writes the lease columns in `changed` (at least one) of a job that holds a
// lease before and after: ?1..?n the kLeaseColumns, then the job's seq.
std::string_view UpdateLeaseSql(JobColumnSet changed);
// ?1 the job's seq.
inline constexpr char kDeleteLease[] = "DELETE FROM job_leases WHERE job_seq = ?1";

inline constexpr char kFindIdempotencyKey[] =
    "SELECT " REDRIVE_JOB_ID " FROM jobs WHERE idempotency_key = ?1";
inline constexpr char kInsertTag[] =
    "INSERT INTO job_tags (job_id, key, value) VALUES (" REDRIVE_JOB_ID_OF("?1") ", ?2, ?3)";
// History and tags go with the job (ON DELETE CASCADE).
// Returns the deleted job's queue and status (its counter goes down).
inline constexpr char kDeleteJob[] =
    "DELETE FROM jobs WHERE id = " REDRIVE_JOB_ID_OF("?1")
    " RETURNING " REDRIVE_JOB_QUEUE ", status";
inline constexpr char kDeleteQueueJobs[] =
    "DELETE FROM jobs WHERE queue_id = " REDRIVE_QUEUE_ID("?1");

// A queue's name is kept once, in queue_names, and each job holds its id
// (compact_schema.cc, version 29): a name is added before a job is written
// into its queue, and goes when the queue and its jobs have (DeleteQueue).
// ?1 the queue.
inline constexpr char kInternQueue[] =
    "INSERT INTO queue_names (name) VALUES (?1) ON CONFLICT (name) DO NOTHING";
inline constexpr char kForgetQueue[] =
    "DELETE FROM queue_names WHERE name = ?1"
    " AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.queue_id = queue_names.id)";

// A job's history is packed into segments (history_codec.h), one row each.
// ?1 the job id: its seq, and the seg and entries of its last segment (NULL
// when it has none). jobs.id is unique, so the one row of jobs leaves the
// order to the primary key of job_history, read backwards: no sort. A change
// that writes history reads it first (SqliteWriteTx::FindChangeTarget); one
// that does not reads kGetSeq.
inline constexpr char kLastHistorySegment[] =
    "SELECT jobs.seq, h.seg, h.entries FROM jobs LEFT JOIN job_history h ON h.job_seq = jobs.seq"
    " WHERE jobs.id = " REDRIVE_JOB_ID_OF("?1") " ORDER BY h.seg DESC LIMIT 1";
// ?1 the job's seq, ?2 the segment, ?3 its entries (all of them: a segment
// is rewritten whole).
inline constexpr char kWriteHistorySegment[] =
    "INSERT INTO job_history (job_seq, seg, entries) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (job_seq, seg) DO UPDATE SET entries = excluded.entries";
// ?1 the job id: its seq, its id and each segment in order.
inline constexpr char kGetHistory[] =
    "SELECT jobs.seq, " REDRIVE_JOB_ID ", h.entries"
    " FROM jobs JOIN job_history h ON h.job_seq = jobs.seq"
    " WHERE jobs.id = " REDRIVE_JOB_ID_OF("?1") " ORDER BY h.seg";

// A job's seq, which keys its writes (the guarded update, payloads, lease,
// history): one lookup of its id per change, this or kLastHistorySegment.
// ?1 the job id.
inline constexpr char kGetSeq[] = "SELECT seq FROM jobs WHERE id = " REDRIVE_JOB_ID_OF("?1");

// The guarded write of a Change. Parameters: ?1..?n the updated columns
// (kUpdatedColumns, as bound by BindColumns), then the guard: the job's seq
// (kGuardSeqParam), the status it must still have and the lease it must still
// be under. A NULL lease needs no lookup: a job holds one exactly while it is
// processing, so the status alone says it has none. Fixed columns are never
// written.
//
// Only the columns in `changed` are SET. SQLite maintains every index that
// covers an assigned column even when the value is the same, and the jobs
// table has many indexes, so assigning only what changed is most of an
// update's cost. updated_at is always assigned. The text for each set of
// columns is built once.
std::string_view UpdateJobSql(JobColumnSet changed);
inline constexpr int kGuardSeqParam = std::popcount(kUpdatedColumns) + 1;
inline constexpr int kGuardStatusParam = kGuardSeqParam + 1;
inline constexpr int kGuardLeaseIdParam = kGuardSeqParam + 2;

// Writes the payload columns in `changed` (at least one) to job_payloads, so
// a transition never rewrites a large payload it did not change. Parameters
// ?1..?n the kPayloadsColumns, then the job's seq.
std::string_view UpdatePayloadsSql(JobColumnSet changed);

// ?1 queue, ?2 now, ?3 limit.
inline constexpr char kSelectClaimable[] =
    "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE status = 'pending'"
    " AND queue_id = " REDRIVE_QUEUE_ID("?1")
    " AND (expires_at IS NULL OR expires_at > ?2)"
    " ORDER BY priority DESC, created_at LIMIT ?3";
// ?1 now, ?2 limit.
inline constexpr char kSelectDueScheduled[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs WHERE status = 'scheduled' AND scheduled_at <= ?1"
    " ORDER BY scheduled_at LIMIT ?2";
// ?1 now, ?2 limit, ?3 queue.
inline constexpr char kSelectDueScheduledInQueue[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs INDEXED BY jobs_scheduled"
    " WHERE status = 'scheduled' AND scheduled_at <= ?1"
    " AND queue_id = " REDRIVE_QUEUE_ID("?3")
    " ORDER BY scheduled_at LIMIT ?2";
// ?1 now, ?2 limit.
inline constexpr char kSelectExpiredLeases[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM job_leases l JOIN jobs ON jobs.seq = l.job_seq WHERE l.lease_expires_at <= ?1"
    " ORDER BY l.lease_expires_at LIMIT ?2";
// ?1 now, ?2 limit. The status and NOT NULL terms repeat the partial index's
// WHERE clause word for word, which is how SQLite recognises it applies.
inline constexpr char kSelectPastDeadline[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL"
    " AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2";
// ?1 worker, ?2 limit.
inline constexpr char kSelectHeldBy[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM job_leases l JOIN jobs ON jobs.seq = l.job_seq WHERE l.assigned_worker_id = ?1"
    " LIMIT ?2";
// Retention, by status: ?1 queue, ?2 before, ?3 limit. Each walks an index
// of that status alone: completed and cancelled jobs by completed_at (their
// indexes hold no status), dead jobs by deadlettered_at in jobs_dlq_queue
// (compact_schema.cc, version 28).
inline constexpr char kSelectCompletedExpired[] =
    "SELECT " REDRIVE_JOB_ID " FROM jobs WHERE status = 'completed'"
    " AND queue_id = " REDRIVE_QUEUE_ID("?1")
    " AND completed_at < ?2 ORDER BY completed_at LIMIT ?3";
inline constexpr char kSelectCancelledExpired[] =
    "SELECT " REDRIVE_JOB_ID " FROM jobs WHERE status = 'cancelled'"
    " AND queue_id = " REDRIVE_QUEUE_ID("?1")
    " AND completed_at < ?2 ORDER BY completed_at LIMIT ?3";
inline constexpr char kSelectDeadExpired[] =
    "SELECT " REDRIVE_JOB_ID " FROM jobs WHERE status = 'deadletter'"
    " AND queue_id = " REDRIVE_QUEUE_ID("?1")
    " AND deadlettered_at < ?2 ORDER BY deadlettered_at LIMIT ?3";

// Counting reads job_counts (sqlite_schema.cc, version 23): a few rows per
// queue, whatever the number of jobs.
inline constexpr char kCountAll[] = "SELECT status, sum(n) FROM job_counts GROUP BY status";
inline constexpr char kCountQueue[] = "SELECT status, n FROM job_counts WHERE queue_name = ?1";
// ?1 queue, ?2 status, ?3 delta. Two single-row statements, not an upsert
// or a trigger: a statement that writes one row of one table needs no
// statement journal (sqlite_write_tx.h, WriteCounts).
inline constexpr char kAddToCount[] =
    "UPDATE job_counts SET n = n + ?3 WHERE queue_name = ?1 AND status = ?2";
inline constexpr char kInsertCount[] =
    "INSERT INTO job_counts (queue_name, status, n) VALUES (?1, ?2, ?3)";
// ?1 queue. Its counters, once its jobs are all deleted (DeleteQueue).
inline constexpr char kDeleteQueueCounts[] = "DELETE FROM job_counts WHERE queue_name = ?1";
// ?1 queue. Its zero counters (a zero row and no row mean the same).
inline constexpr char kDeleteEmptyCounts[] =
    "DELETE FROM job_counts WHERE queue_name = ?1 AND n = 0";

inline constexpr char kOldestDeadletter[] =
    "SELECT deadlettered_at FROM jobs WHERE status = 'deadletter'"
    " AND queue_id = " REDRIVE_QUEUE_ID("?1")
    " ORDER BY deadlettered_at LIMIT 1";
// One step of jobs_listing per status (a min() over `status IN (...)`
// would walk every waiting job's entry); min() skips a status with none.
inline constexpr char kOldestWaiting[] =
    "SELECT min(t) FROM ("
    "SELECT (SELECT created_at FROM jobs WHERE queue_id = " REDRIVE_QUEUE_ID("?1")
    " AND status = 'pending' ORDER BY created_at LIMIT 1) AS t UNION ALL "
    "SELECT (SELECT created_at FROM jobs WHERE queue_id = " REDRIVE_QUEUE_ID("?1")
    " AND status = 'scheduled' ORDER BY created_at LIMIT 1))";
inline constexpr char kNextScheduled[] =
    "SELECT scheduled_at FROM jobs WHERE status = 'scheduled' ORDER BY scheduled_at LIMIT 1";
inline constexpr char kNextLeaseExpiry[] =
    "SELECT lease_expires_at FROM job_leases ORDER BY lease_expires_at LIMIT 1";
inline constexpr char kNextDeadline[] =
    "SELECT expires_at FROM jobs WHERE status IN ('pending','scheduled')"
    " AND expires_at IS NOT NULL ORDER BY expires_at LIMIT 1";

// A query built from filters, with its parameters in order (?1, ?2, ...).
// Text parameters point into the filter they came from, which must outlive
// the query's execution.
struct BuiltQuery {
  std::string sql;
  std::vector<std::variant<int64_t, std::string_view>> params;
};

// The fingerprint backfill's rows (?1 = limit): exactly the
// jobs_unfingerprinted index. The write is guarded: the job must be
// unchanged (?1 = id, ?2 = fingerprint, ?3 = last_error as read).
inline constexpr char kSelectUnfingerprinted[] =
    "SELECT " REDRIVE_JOB_ID ", last_error FROM jobs"
    " WHERE error_fingerprint IS NULL AND last_error IS NOT NULL"
    " AND status IN ('deadletter','quarantined') ORDER BY id LIMIT ?1";
inline constexpr char kSetErrorFingerprint[] =
    "UPDATE jobs SET error_fingerprint = ?2 WHERE id = " REDRIVE_JOB_ID_OF("?1")
    " AND error_fingerprint IS NULL"
    " AND last_error = ?3 AND status IN ('deadletter','quarantined')";

// GET /jobs: newest created first.
BuiltQuery ListJobs(const JobFilter& f, bool with_payload);
// GET /jobs/dlq: dead-lettered jobs, newest dead first; f.status is ignored.
BuiltQuery ListDeadLetters(const JobFilter& f);
// GET /jobs/dlq/summary: columns queue (its name), dead_reason, error_fingerprint
// (may be NULL), error (the smallest last_error, truncated, may be NULL),
// count, oldest and newest deadlettered_at.
BuiltQuery SummarizeDeadLetters(const JobFilter& f);
// Redrive/purge selection, oldest dead first, with payload. `ids_json` is
// sel.job_ids as a JSON array (used only when job_ids is non-empty).
BuiltQuery SelectDeadLetters(const DeadLetterSelection& sel, const std::string& ids_json);
// How many dead jobs `sel` matches, its limit ignored.
BuiltQuery CountDeadLetters(const DeadLetterSelection& sel, const std::string& ids_json);
// Whether a bulk operation's walk breaks ties of created_at by seq: from
// its start, and from every cursor SelectJobsAfter writes. A cursor without
// a seq (written before schema version 25) goes on by id, as it began.
bool WalksBySeq(const JobSelection& sel);
// A bulk operation's batch (WriteTx::SelectJobsAfter) among the jobs in
// `status` (one of sel.statuses: the store merges them): REDRIVE_JOB_COLUMNS
// and then seq. And its count.
BuiltQuery SelectJobsAfter(const JobSelection& sel, JobStatus status, const std::string& ids_json);
BuiltQuery CountSelectedJobs(const JobSelection& sel, const std::string& ids_json);

// clang-format on

}  // namespace redrive::store::sqlite::sql
