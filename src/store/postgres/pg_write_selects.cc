// The selects of PgWriteTx (what the engine is about to change, locked as
// it is read) and its queue, worker, webhook and throughput writes.
#include <algorithm>
#include <iterator>
#include <string>
#include <type_traits>

#include "core/job_cursor.h"
#include "core/limits.h"
#include "store/postgres/pg_job_sql.h"
#include "store/postgres/pg_operation_sql.h"
#include "store/postgres/pg_row_mapping.h"
#include "store/postgres/pg_schedule_sql.h"
#include "store/postgres/pg_schema.h"
#include "store/postgres/pg_throughput_sql.h"
#include "store/postgres/pg_webhook_sql.h"
#include "store/postgres/pg_write_tx.h"

namespace redrive::store::postgres {
namespace {

const std::string kLockQueueCreation =
    "SELECT pg_advisory_xact_lock(" + std::to_string(kQueueCreationLockKey) + ")";
const std::string kLockScheduleCreation =
    "SELECT pg_advisory_xact_lock(" + std::to_string(kScheduleCreationLockKey) + ")";
constexpr char kCountQueues[] = "SELECT count(*) FROM redrive.queues";
constexpr char kLockQueue[] =
    "SELECT " REDRIVE_PG_QUEUE_COLUMNS " FROM redrive.queues WHERE queue_name = $1 FOR UPDATE";
constexpr char kInsertQueueIfAbsent[] =
    "INSERT INTO redrive.queues (" REDRIVE_PG_QUEUE_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
    " $16, $17)"
    " ON CONFLICT (queue_name) DO NOTHING RETURNING " REDRIVE_PG_QUEUE_COLUMNS;
constexpr char kPutQueue[] =
    "INSERT INTO redrive.queues (" REDRIVE_PG_QUEUE_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,"
    " $16, $17)"
    " ON CONFLICT (queue_name) DO UPDATE SET max_retries = EXCLUDED.max_retries,"
    " default_timeout = EXCLUDED.default_timeout, enabled = EXCLUDED.enabled,"
    " paused = EXCLUDED.paused, paused_reason = EXCLUDED.paused_reason,"
    " backoff_base_ms = EXCLUDED.backoff_base_ms, backoff_max_ms = EXCLUDED.backoff_max_ms,"
    " backoff_jitter_ms = EXCLUDED.backoff_jitter_ms,"
    " retention_completed_s = EXCLUDED.retention_completed_s,"
    " retention_deadletter_s = EXCLUDED.retention_deadletter_s,"
    " retention_cancelled_s = EXCLUDED.retention_cancelled_s,"
    " created_at = EXCLUDED.created_at, updated_at = EXCLUDED.updated_at,"
    " redrive_until = EXCLUDED.redrive_until, crash_limit = EXCLUDED.crash_limit,"
    " max_snoozes = EXCLUDED.max_snoozes";
constexpr char kDeleteQueue[] = "DELETE FROM redrive.queues WHERE queue_name = $1";
constexpr char kLockWorker[] =
    "SELECT " REDRIVE_PG_WORKER_COLUMNS " FROM redrive.workers WHERE id = $1 FOR UPDATE";
constexpr char kPutWorker[] =
    "INSERT INTO redrive.workers (" REDRIVE_PG_WORKER_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
    " ON CONFLICT (id) DO UPDATE SET queue_name = EXCLUDED.queue_name,"
    " hostname = EXCLUDED.hostname, worker_type = EXCLUDED.worker_type,"
    " max_concurrency = EXCLUDED.max_concurrency, metadata = EXCLUDED.metadata,"
    " version = EXCLUDED.version, status = EXCLUDED.status,"
    " current_jobs = EXCLUDED.current_jobs, registered_at = EXCLUDED.registered_at,"
    " last_heartbeat_at = EXCLUDED.last_heartbeat_at,"
    " deregistered_at = EXCLUDED.deregistered_at";
// A worker holding a lease keeps its row whatever its heartbeat says: the
// job's assigned_worker_id still names it.
constexpr char kDeleteOfflineWorkers[] =
    "DELETE FROM redrive.workers WHERE id IN (SELECT w.id FROM redrive.workers w"
    " WHERE w.last_heartbeat_at < $1 AND NOT EXISTS (SELECT 1 FROM redrive.jobs j"
    " WHERE j.status = 'processing' AND j.assigned_worker_id = w.id)"
    " ORDER BY w.last_heartbeat_at, w.id LIMIT $2 FOR UPDATE OF w SKIP LOCKED)";

// Runs `query` with $1 = `key` and $2 = `limit` and reads jobs.
template <typename Key>
Result<std::vector<Job>> SelectJobs(PgConnection& conn, const char* query, const Key& key,
                                    int limit) {
  PgParams p;
  if constexpr (std::is_same_v<Key, std::string>) {
    p.AddRef(key);
  } else {
    p.Add(key);
  }
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(query, p));
  return PgJobs(r);
}

}  // namespace

Result<std::vector<Job>> PgWriteTx::SelectClaimable(const std::string& queue_name, Instant now,
                                                    int limit) {
  PgParams p;
  p.AddRef(queue_name);
  p.Add(now);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::kSelectClaimable, p));
  return Locked(PgJobs(r));
}

Result<std::vector<Job>> PgWriteTx::SelectDueScheduled(const std::optional<std::string>& queue_name,
                                                       Instant now, int limit) {
  if (!queue_name) return Locked(SelectJobs(*held, sql::kSelectDueScheduled, now, limit));
  PgParams p;
  p.Add(now);
  p.Add(limit);
  p.AddRef(*queue_name);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::kSelectDueScheduledInQueue, p));
  return Locked(PgJobs(r));
}

Result<std::vector<Job>> PgWriteTx::SelectExpiredLeases(Instant now, int limit) {
  return Locked(SelectJobs(*held, sql::kSelectExpiredLeases, now, limit));
}

Result<std::vector<Job>> PgWriteTx::SelectPastDeadline(Instant now, int limit) {
  return Locked(SelectJobs(*held, sql::kSelectPastDeadline, now, limit));
}

Result<std::vector<Job>> PgWriteTx::SelectHeldBy(const std::string& worker_id, int limit) {
  return Locked(SelectJobs(*held, sql::kSelectHeldBy, worker_id, limit));
}

Result<std::vector<Job>> PgWriteTx::SelectDeadLetters(const DeadLetterSelection& sel) {
  sql::BuiltQuery q = sql::SelectDeadLetters(sel);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecParams(q.sql, q.params));
  return Locked(PgJobs(r));
}

Result<long long> PgWriteTx::CountDeadLetters(const DeadLetterSelection& sel) {
  sql::BuiltQuery q = sql::CountDeadLetters(sel);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecParams(q.sql, q.params));
  return static_cast<long long>(r.Int64(0, 0));
}

Result<std::vector<FingerprintBackfill>> PgWriteTx::SelectUnfingerprinted(int limit) {
  // Exactly the jobs_unfingerprinted index; rows another writer holds are skipped.
  PgParams p;
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(
      PgResult r,
      held->ExecParams("SELECT id, last_error FROM redrive.jobs WHERE error_fingerprint IS NULL"
                       " AND last_error IS NOT NULL AND status IN ('deadletter','quarantined')"
                       " ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED",
                       p));
  std::vector<FingerprintBackfill> rows;
  for (int i = 0; i < r.rows(); ++i) rows.push_back({r.String(i, 0), r.String(i, 1), ""});
  return rows;
}

Result<long long> PgWriteTx::SetErrorFingerprints(const std::vector<FingerprintBackfill>& rows) {
  if (rows.empty()) return 0LL;
  std::vector<std::string> ids, fingerprints, errors;
  for (const FingerprintBackfill& row : rows) {
    ids.push_back(row.job_id);
    fingerprints.push_back(row.fingerprint);
    errors.push_back(row.last_error);
  }
  PgParams p;
  p.AddTextArray(ids);
  p.AddTextArray(fingerprints);
  p.AddTextArray(errors);
  REDRIVE_ASSIGN_OR_RETURN(
      PgResult r,
      held->ExecParams("UPDATE redrive.jobs j SET error_fingerprint = v.fp"
                       " FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, fp, err)"
                       " WHERE j.id = v.id AND j.error_fingerprint IS NULL AND j.last_error = v.err"
                       " AND j.status IN ('deadletter','quarantined') RETURNING 1",
                       p));
  return static_cast<long long>(r.rows());
}

Result<long long> PgWriteTx::DeleteJobs(const std::vector<std::string>& ids) {
  if (ids.empty()) return 0LL;
  for (const std::string& id : ids) locked_.erase(id);
  PgParams p;
  p.AddTextArray(ids);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::kDeleteJobs, p));
  return CountDeleted(r);  // jobs, not their history
}

Result<long long> PgWriteTx::CountDeleted(const PgResult& r) {
  long long deleted = 0;
  for (int i = 0; i < r.rows(); ++i) {
    std::optional<JobStatus> status = ParseJobStatus(r.Text(i, 1));
    if (!status) return Status::Internal("unknown job status in store: " + r.String(i, 1));
    count_deltas_.Add(r.String(i, 0), *status, -r.Int64(i, 2));
    deleted += r.Int64(i, 2);
  }
  return deleted;
}

Result<std::vector<std::string>> PgWriteTx::SelectRetentionExpired(const std::string& queue_name,
                                                                   JobStatus status, Instant before,
                                                                   int limit) {
  if (status != JobStatus::kCompleted && status != JobStatus::kCancelled &&
      status != JobStatus::kDeadletter) {
    return Status::Internal(std::string("no retention for jobs ") +
                            std::string(JobStatusName(status)));
  }
  PgParams p;
  p.AddRef(queue_name);
  p.Add(JobStatusName(status));
  p.Add(before);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::kSelectRetentionExpired, p));
  std::vector<std::string> ids;
  for (int i = 0; i < r.rows(); ++i) ids.push_back(r.String(i, 0));
  return ids;
}

Result<QueueConfig> PgWriteTx::EnsureQueue(const std::string& name, Instant now,
                                           size_t max_queues) {
  // Read first: enqueue calls this every time, and the queue almost always
  // exists already.
  REDRIVE_ASSIGN_OR_RETURN(std::optional<QueueConfig> existing, GetQueue(name));
  if (existing) return std::move(*existing);
  // Creations take turns from here to their commit: the count (a statement
  // after the lock, so a snapshot that sees every earlier creation) is
  // exact. Rare: only a queue's first job or configuration comes here.
  REDRIVE_RETURN_IF_ERROR(held->ExecPrepared(kLockQueueCreation, PgParams()).status());
  REDRIVE_ASSIGN_OR_RETURN(PgResult count, held->ExecPrepared(kCountQueues, PgParams()));
  if (static_cast<uint64_t>(count.Int64(0, 0)) >= max_queues) {
    // Unless it was created while this waited for the lock.
    REDRIVE_ASSIGN_OR_RETURN(existing, GetQueue(name));
    if (existing) return std::move(*existing);
    return Status::Conflict(QueueLimitMessage(name, max_queues));
  }
  QueueConfig config;
  config.queue_name = name;
  config.created_at = now;
  config.updated_at = now;
  PgParams p;
  BindPgQueue(p, config);
  // A racing EnsureQueue of the same name: ON CONFLICT waits for it, then
  // inserts nothing; the read after it (a new snapshot) sees its row.
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(kInsertQueueIfAbsent, p));
  if (r.rows() == 1) return ReadPgQueue(r, 0);
  REDRIVE_ASSIGN_OR_RETURN(existing, GetQueue(name));
  if (existing) return std::move(*existing);
  return Status::Aborted("queue " + name + " was deleted while being created");
}

Result<std::optional<QueueConfig>> PgWriteTx::LockQueue(const std::string& name) {
  PgParams p;
  p.AddRef(name);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(kLockQueue, p));
  if (r.rows() == 0) return std::optional<QueueConfig>();
  return std::optional<QueueConfig>(ReadPgQueue(r, 0));
}

Status PgWriteTx::PutQueue(const QueueConfig& config) {
  PgParams p;
  BindPgQueue(p, config);
  return held->ExecPrepared(kPutQueue, p).status();
}

Status PgWriteTx::DeleteQueue(const std::string& name, bool delete_jobs) {
  PgParams p;
  p.AddRef(name);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(kDeleteQueue, p));
  if (r.affected() == 0) return Status::NotFound("queue " + name + " not found");
  if (delete_jobs) {
    locked_.clear();
    REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::kDeleteQueueJobs, p));
    REDRIVE_RETURN_IF_ERROR(CountDeleted(r).status());
  }
  return held->ExecPrepared(sql::kDeleteEmptyCounts, p).status();
}

Result<std::optional<WorkerInfo>> PgWriteTx::LockWorker(const std::string& id) {
  PgParams p;
  p.AddRef(id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(kLockWorker, p));
  if (r.rows() == 0) return std::optional<WorkerInfo>();
  return std::optional<WorkerInfo>(ReadPgWorker(r, 0));
}

Status PgWriteTx::PutWorker(const WorkerInfo& worker) {
  PgParams p;
  BindPgWorker(p, worker);
  return held->ExecPrepared(kPutWorker, p).status();
}

Result<long long> PgWriteTx::DeleteOfflineWorkers(Instant before, int limit) {
  PgParams p;
  p.Add(before);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(kDeleteOfflineWorkers, p));
  return r.affected();
}

Result<int64_t> PgWriteTx::WebhooksVersion() {
  if (webhooks_version_) return *webhooks_version_;
  return PgReads::WebhooksVersion();
}

// A webhook write may move the version (its trigger): read it again.
Status PgWriteTx::InsertWebhook(const Webhook& webhook, size_t max_webhooks) {
  webhooks_version_.reset();
  return webhook_sql::InsertWebhook(*held, webhook, max_webhooks);
}

Status PgWriteTx::UpdateWebhook(const Webhook& webhook) {
  webhooks_version_.reset();
  return webhook_sql::UpdateWebhook(*held, webhook);
}

Status PgWriteTx::DeleteWebhook(const std::string& id) {
  webhooks_version_.reset();
  return webhook_sql::DeleteWebhook(*held, id);
}

Status PgWriteTx::InsertDelivery(const WebhookDelivery& delivery) {
  return webhook_sql::InsertDelivery(*held, delivery);
}

Status PgWriteTx::UpdateDelivery(const WebhookDelivery& delivery) {
  return webhook_sql::UpdateDelivery(*held, delivery);
}

Result<std::vector<WebhookDelivery>> PgWriteTx::SelectDueDeliveries(Instant now, int limit) {
  return webhook_sql::SelectDueDeliveries(*held, now, limit);
}

Result<long long> PgWriteTx::DeleteFinishedDeliveries(Instant before, int limit) {
  return webhook_sql::DeleteFinishedDeliveries(*held, before, limit);
}

Result<long long> PgWriteTx::CountSchedules() {
  // A statement after the lock reads a snapshot that sees every creation
  // committed before it was granted.
  REDRIVE_RETURN_IF_ERROR(held->ExecPrepared(kLockScheduleCreation, PgParams()).status());
  return PgReads::CountSchedules();
}

Status PgWriteTx::InsertOperation(const OperationRecord& op, size_t max_unfinished) {
  return operation_sql::InsertOperation(*held, op, max_unfinished);
}

Status PgWriteTx::UpdateOperation(const Operation& op) {
  return operation_sql::UpdateOperation(*held, op);
}

Result<long long> PgWriteTx::DeleteFinishedOperationsBefore(Instant before, int limit) {
  return operation_sql::DeleteFinishedOperationsBefore(*held, before, limit);
}

Result<std::vector<OperationRecord>> PgWriteTx::SelectDueOperations(Instant now, int limit) {
  return operation_sql::SelectDueOperations(*held, now, limit);
}

Result<SelectedJobs> PgWriteTx::SelectJobsAfter(const JobSelection& sel) {
  // Each status apart (an index seek from the cursor), then merged. Every row
  // read is locked until the commit, those past the merge's cut too. Ties
  // by id: a cursor's seq (SQLite's) means nothing here.
  SelectedJobs out;
  for (JobStatus status : sel.statuses) {
    sql::BuiltQuery q = sql::SelectJobsAfter(sel, status);
    REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecParams(q.sql, q.params));
    REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> some, Locked(PgJobs(r)));
    std::move(some.begin(), some.end(), std::back_inserter(out.jobs));
  }
  KeepFirstByCursor(out.jobs, static_cast<size_t>(std::max(sel.match.limit, 0)));
  if (!out.jobs.empty()) out.next = CursorOf(out.jobs.back());
  return out;
}

Status PgWriteTx::InsertSchedule(const Schedule& schedule) {
  return schedule_sql::InsertSchedule(*held, schedule);
}

Status PgWriteTx::UpdateSchedule(const Schedule& schedule) {
  return schedule_sql::UpdateSchedule(*held, schedule);
}

Status PgWriteTx::DeleteSchedule(const std::string& id) {
  return schedule_sql::DeleteSchedule(*held, id);
}

Result<std::vector<Schedule>> PgWriteTx::SelectDueSchedules(Instant now, int limit) {
  return schedule_sql::SelectDueSchedules(*held, now, limit);
}

Result<long long> PgWriteTx::DeleteOldScheduleRuns(int keep_per_schedule, Instant before,
                                                   int limit) {
  return schedule_sql::DeleteOldScheduleRuns(*held, keep_per_schedule, before, limit);
}

Status PgWriteTx::InsertScheduleRun(const ScheduleRun& run) {
  return schedule_sql::InsertScheduleRun(*held, run);
}

Status PgWriteTx::RecordThroughput(const ThroughputSample& sample) {
  return throughput_sql::RecordThroughput(*held, sample);
}

Result<long long> PgWriteTx::DeleteThroughputBefore(Instant before) {
  return throughput_sql::DeleteThroughputBefore(*held, before);
}

Result<long long> PgWriteTx::DeleteHourlyThroughputBefore(Instant before) {
  return throughput_sql::DeleteHourlyBefore(*held, before);
}

}  // namespace redrive::store::postgres
