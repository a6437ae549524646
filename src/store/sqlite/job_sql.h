// The SQL of the job queries, in one place, so the query-plan tests
// (job_sql_plan_test.cc) check the very text the store runs. Fixed queries
// are literals; filtered listings are built from the filters that are set
// (an unset filter adds no condition, so SQLite can pick the index that
// fits; "?1 IS NULL OR col = ?1" would defeat index selection).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "store/sqlite/row_mapping.h"
#include "store/store.h"

namespace redrive::store::sqlite::sql {

inline constexpr char kGetJob[] = "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE id = ?1";
// ?1 = a JSON array of ids.
inline constexpr char kGetJobs[] =
    "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE id IN (SELECT value FROM json_each(?1))";
// Parameters as bound by BindJob; ?4 (payload) and ?5 (result) are not
// columns of jobs but of job_payloads (kInsertPayload).
inline constexpr char kInsertJob[] =
    "INSERT INTO jobs (id, queue_name, status, priority, retry_count, max_retries, "
    "timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, last_error, "
    "dead_reason, tags, idempotency_key, created_at, updated_at, scheduled_at, started_at, "
    "completed_at, expires_at, deadlettered_at, assigned_worker_id, lease_id, "
    "lease_expires_at, attempts, lease_expiries"
    ") VALUES (?1, ?2, ?3, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
    "?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28)";
inline constexpr char kInsertPayload[] =
    "INSERT INTO job_payloads (job_id, payload, result) VALUES (?1, ?2, ?3)";
inline constexpr char kUpdatePayload[] = "UPDATE job_payloads SET payload = ?2 WHERE job_id = ?1";
inline constexpr char kUpdateResult[] = "UPDATE job_payloads SET result = ?2 WHERE job_id = ?1";
inline constexpr char kFindIdempotencyKey[] = "SELECT id FROM jobs WHERE idempotency_key = ?1";
inline constexpr char kInsertTag[] =
    "INSERT INTO job_tags (job_id, key, value) VALUES (?1, ?2, ?3)";
inline constexpr char kDeleteTags[] = "DELETE FROM job_tags WHERE job_id = ?1";
inline constexpr char kUpdateTagsJson[] = "UPDATE jobs SET tags = ?2 WHERE id = ?1";
// History and tags go with the job (ON DELETE CASCADE).
inline constexpr char kDeleteJob[] = "DELETE FROM jobs WHERE id = ?1";
inline constexpr char kDeleteQueueJobs[] = "DELETE FROM jobs WHERE queue_name = ?1";

inline constexpr char kInsertHistory[] =
    "INSERT INTO job_history (" REDRIVE_HISTORY_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6)";
// rowid breaks ties in insertion order (ids are time-ordered only to the ms).
inline constexpr char kGetHistory[] = "SELECT " REDRIVE_HISTORY_COLUMNS
                                      " FROM job_history WHERE job_id = ?1"
                                      " ORDER BY created_at, rowid";

// The guarded write of a Change. Immutable columns (id, queue_name,
// created_at, idempotency_key) are never written; tags only when changed.
// Payload and result are in job_payloads and written only when a change
// says so (kUpdatePayload, kUpdateResult), so a transition never rewrites a
// large payload. Parameters: ?1..?21 the mutable columns (BindJobUpdate),
// ?22 id, ?23 guard status, ?24 guard lease id.
//
// `changed` has bit i−1 set for each mutable column ?i (1..21) whose value
// changed; only those are SET. SQLite maintains every index that covers an
// assigned column even when the value is the same, and the jobs table has
// many indexes, so assigning only what changed is most of an update's cost.
// updated_at (?11) is always assigned. The text for each mask is built once.
std::string_view UpdateJobSql(uint32_t changed);
inline constexpr uint32_t kAllMutableColumns = (1u << 21) - 1;

// ?1 queue, ?2 now, ?3 limit.
inline constexpr char kSelectClaimable[] = "SELECT " REDRIVE_JOB_COLUMNS
                                           " FROM jobs WHERE status = 'pending' AND queue_name = ?1"
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
    " WHERE status = 'scheduled' AND scheduled_at <= ?1 AND queue_name = ?3"
    " ORDER BY scheduled_at LIMIT ?2";
// ?1 now, ?2 limit.
inline constexpr char kSelectExpiredLeases[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs WHERE status = 'processing' AND lease_expires_at <= ?1"
    " ORDER BY lease_expires_at LIMIT ?2";
// ?1 now, ?2 limit. The status and NOT NULL terms repeat the partial index's
// WHERE clause word for word, which is how SQLite recognises it applies.
inline constexpr char kSelectPastDeadline[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs WHERE status IN ('pending','scheduled') AND expires_at IS NOT NULL"
    " AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2";
// ?1 worker, ?2 limit.
inline constexpr char kSelectHeldBy[] =
    "SELECT " REDRIVE_JOB_COLUMNS
    " FROM jobs INDEXED BY jobs_lease"
    " WHERE status = 'processing' AND assigned_worker_id = ?1 LIMIT ?2";
// ?1 queue, ?2 status, ?3 before, ?4 limit.
inline constexpr char kSelectRetentionExpired[] =
    "SELECT id FROM jobs WHERE queue_name = ?1 AND status = ?2"
    " AND completed_at IS NOT NULL AND completed_at < ?3 ORDER BY completed_at LIMIT ?4";

// Counting walks the listing index (covering), grouped in its own order.
inline constexpr char kCountAll[] = "SELECT status, count(*) FROM jobs GROUP BY queue_name, status";
inline constexpr char kCountQueue[] =
    "SELECT status, count(*) FROM jobs WHERE queue_name = ?1 GROUP BY status";

inline constexpr char kOldestDeadletter[] =
    "SELECT deadlettered_at FROM jobs WHERE status = 'deadletter' AND queue_name = ?1"
    " ORDER BY deadlettered_at LIMIT 1";
inline constexpr char kNextScheduled[] =
    "SELECT scheduled_at FROM jobs WHERE status = 'scheduled' ORDER BY scheduled_at LIMIT 1";
inline constexpr char kNextLeaseExpiry[] =
    "SELECT lease_expires_at FROM jobs WHERE status = 'processing'"
    " ORDER BY lease_expires_at LIMIT 1";
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

// GET /jobs: newest created first.
BuiltQuery ListJobs(const JobFilter& f, bool with_payload);
// GET /jobs/dlq: dead-lettered jobs, newest dead first; f.status is ignored.
BuiltQuery ListDeadLetters(const JobFilter& f);
// GET /jobs/dlq/summary: columns queue_name, dead_reason, error (truncated
// last_error, may be NULL), count, oldest and newest deadlettered_at.
BuiltQuery SummarizeDeadLetters(const JobFilter& f);
// Redrive/purge selection, oldest dead first, with payload. `ids_json` is
// sel.job_ids as a JSON array (used only when job_ids is non-empty).
BuiltQuery SelectDeadLetters(const DeadLetterSelection& sel, const std::string& ids_json);

}  // namespace redrive::store::sqlite::sql
