// The selects of SqliteWriteTx (what the engine is about to change, read
// under the write lock) and its queue/worker writes.
#include <optional>
#include <utility>

#include "core/limits.h"
#include "core/tags_json.h"
#include "store/sqlite/job_sql.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/row_mapping.h"
#include "store/sqlite/sqlite_write_tx.h"

namespace redrive::store::sqlite {
namespace {

constexpr char kPutQueue[] = "INSERT OR REPLACE INTO queues (" REDRIVE_QUEUE_COLUMNS
                             ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                             "?14, ?15, ?16, ?17)";
constexpr char kDeleteQueue[] = "DELETE FROM queues WHERE queue_name = ?1";
constexpr char kCountQueues[] = "SELECT count(*) FROM queues";
constexpr char kPutWorker[] = "INSERT OR REPLACE INTO workers (" REDRIVE_WORKER_COLUMNS
                              ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
// A worker holding a lease keeps its row whatever its heartbeat says: the
// lease's assigned_worker_id still names it.
constexpr char kDeleteOfflineWorkers[] =
    "DELETE FROM workers WHERE id IN (SELECT w.id FROM workers w WHERE w.last_heartbeat_at < ?1"
    " AND NOT EXISTS (SELECT 1 FROM job_leases l WHERE l.assigned_worker_id = w.id)"
    " ORDER BY w.last_heartbeat_at, w.id LIMIT ?2)";

// Runs `query` with ?1 = now (or a text key) and ?2 = limit.
template <typename Key>
Result<std::vector<Job>> SelectByKeyAndLimit(Connection& conn, std::string_view query,
                                             const Key& key, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(query));
  stmt.Bind(1, key);
  stmt.Bind(2, limit);
  return CollectJobs(stmt);
}

}  // namespace

Result<std::vector<Job>> SqliteWriteTx::SelectClaimable(const std::string& queue_name, Instant now,
                                                        int limit) {
  // SQLite has one writer, and this runs under its lock: no row locking
  // (PostgreSQL's FOR UPDATE SKIP LOCKED) is needed.
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kSelectClaimable));
  stmt.Bind(1, queue_name);
  stmt.Bind(2, now);
  stmt.Bind(3, limit);
  return CollectJobs(stmt);
}

Result<std::vector<Job>> SqliteWriteTx::SelectDueScheduled(
    const std::optional<std::string>& queue_name, Instant now, int limit) {
  if (!queue_name) return SelectByKeyAndLimit(conn(), sql::kSelectDueScheduled, now, limit);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kSelectDueScheduledInQueue));
  stmt.Bind(1, now);
  stmt.Bind(2, limit);
  stmt.Bind(3, *queue_name);
  return CollectJobs(stmt);
}

Result<std::vector<Job>> SqliteWriteTx::SelectExpiredLeases(Instant now, int limit) {
  return SelectByKeyAndLimit(conn(), sql::kSelectExpiredLeases, now, limit);
}

Result<std::vector<Job>> SqliteWriteTx::SelectPastDeadline(Instant now, int limit) {
  return SelectByKeyAndLimit(conn(), sql::kSelectPastDeadline, now, limit);
}

Result<std::vector<Job>> SqliteWriteTx::SelectHeldBy(const std::string& worker_id, int limit) {
  return SelectByKeyAndLimit(conn(), sql::kSelectHeldBy, worker_id, limit);
}

Result<std::vector<Job>> SqliteWriteTx::SelectDeadLetters(const DeadLetterSelection& sel) {
  std::string ids_json;
  if (!sel.job_ids.empty()) ids_json = EncodeStringArrayJson(sel.job_ids);
  return RunJobQuery(conn(), sql::SelectDeadLetters(sel, ids_json));
}

Result<long long> SqliteWriteTx::CountDeadLetters(const DeadLetterSelection& sel) {
  std::string ids_json;
  if (!sel.job_ids.empty()) ids_json = EncodeStringArrayJson(sel.job_ids);
  sql::BuiltQuery q = sql::CountDeadLetters(sel, ids_json);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(q.sql));
  BindParams(stmt, q);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Internal("count(*) returned no row");
  return static_cast<long long>(stmt.Int64(0));
}

Result<std::vector<FingerprintBackfill>> SqliteWriteTx::SelectUnfingerprinted(int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kSelectUnfingerprinted));
  stmt.Bind(1, limit);
  std::vector<FingerprintBackfill> rows;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return rows;
    rows.push_back({stmt.String(0), stmt.String(1), ""});
  }
}

Result<long long> SqliteWriteTx::SetErrorFingerprints(
    const std::vector<FingerprintBackfill>& rows) {
  long long set = 0;
  for (const FingerprintBackfill& r : rows) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kSetErrorFingerprint));
    stmt.Bind(1, r.job_id);
    stmt.Bind(2, r.fingerprint);
    stmt.Bind(3, r.last_error);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
    set += stmt.Changes();
  }
  return set;
}

Result<long long> SqliteWriteTx::DeleteJobs(const std::vector<std::string>& ids) {
  long long deleted = 0;
  for (const std::string& id : ids) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kDeleteJob));
    stmt.Bind(1, id);
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) continue;  // no such job
    std::optional<JobStatus> status = ParseJobStatus(stmt.Text(1));
    if (!status) return Status::Internal("unknown job status in store: " + stmt.String(1));
    count_deltas_.Add(stmt.String(0), *status, -1);
    REDRIVE_ASSIGN_OR_RETURN(bool more, stmt.Step());
    if (more) return Status::Internal("DeleteJobs: one id deleted two rows");
    ++deleted;
  }
  return deleted;
}

Result<std::vector<std::string>> SqliteWriteTx::SelectRetentionExpired(
    const std::string& queue_name, JobStatus status, Instant before, int limit) {
  const char* query = nullptr;
  switch (status) {
    case JobStatus::kCompleted:
      query = sql::kSelectCompletedExpired;
      break;
    case JobStatus::kCancelled:
      query = sql::kSelectCancelledExpired;
      break;
    case JobStatus::kDeadletter:
      query = sql::kSelectDeadExpired;
      break;
    default:
      return Status::Internal(std::string("no retention for jobs ") +
                              std::string(JobStatusName(status)));
  }
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(query));
  stmt.Bind(1, queue_name);
  stmt.Bind(2, before);
  stmt.Bind(3, limit);
  std::vector<std::string> ids;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return ids;
    ids.push_back(stmt.String(0));
  }
}

Result<QueueConfig> SqliteWriteTx::EnsureQueue(const std::string& name, Instant now,
                                               size_t max_queues) {
  // Read first: enqueue calls this every time, and the queue almost always
  // exists already.
  REDRIVE_ASSIGN_OR_RETURN(std::optional<QueueConfig> existing, GetQueue(name));
  if (existing) return std::move(*existing);
  {
    // One writer at a time: nobody creates a queue between the count and
    // the insert.
    REDRIVE_ASSIGN_OR_RETURN(Statement count, conn().Prepare(kCountQueues));
    REDRIVE_ASSIGN_OR_RETURN(bool row, count.Step());
    if (row && static_cast<uint64_t>(count.Int64(0)) >= max_queues) {
      return Status::Conflict(QueueLimitMessage(name, max_queues));
    }
  }
  QueueConfig config;
  config.queue_name = name;
  config.created_at = now;
  config.updated_at = now;
  REDRIVE_RETURN_IF_ERROR(PutQueue(config));
  return config;
}

Status SqliteWriteTx::PutQueue(const QueueConfig& config) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(kPutQueue));
  BindQueue(stmt, config);
  return stmt.Run();
}

Status SqliteWriteTx::DeleteQueue(const std::string& name, bool delete_jobs) {
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(kDeleteQueue));
    stmt.Bind(1, name);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
    if (stmt.Changes() == 0) return Status::NotFound("queue " + name + " not found");
  }
  if (delete_jobs) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kDeleteQueueJobs));
    stmt.Bind(1, name);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
    // Its jobs gone, every counter of the queue is zero: the rows go, and
    // so do this transaction's deltas not yet written (one writer: nobody
    // else counts the queue meanwhile).
    count_deltas_.CancelQueue(name);
  }
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(delete_jobs ? sql::kDeleteQueueCounts
                                                                        : sql::kDeleteEmptyCounts));
    stmt.Bind(1, name);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  // Its name, unless jobs are still in it (kept by the queue's delete
  // without its jobs).
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kForgetQueue));
  stmt.Bind(1, name);
  return stmt.Run();
}

Status SqliteWriteTx::PutWorker(const WorkerInfo& worker) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(kPutWorker));
  BindWorker(stmt, worker);
  return stmt.Run();
}

Result<long long> SqliteWriteTx::DeleteOfflineWorkers(Instant before, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(kDeleteOfflineWorkers));
  stmt.Bind(1, before);
  stmt.Bind(2, limit);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

}  // namespace redrive::store::sqlite
