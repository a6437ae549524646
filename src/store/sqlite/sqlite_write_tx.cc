// Transaction control and the job writes of SqliteWriteTx. The selects and
// the queue/worker writes are in sqlite_write_selects.cc.
#include "store/sqlite/sqlite_write_tx.h"

#include "store/sqlite/job_sql.h"
#include "store/sqlite/row_mapping.h"
#include "store/sqlite/tags_json.h"

namespace redrive::store::sqlite {
namespace {

// Binds the mutable columns ?1..?21 of sql::UpdateJobSql.
void BindJobUpdate(Statement& stmt, const Job& job) {
  stmt.Bind(1, JobStatusName(job.status));
  BindJobTimesAndLease(stmt, job, BindJobSettings(stmt, job, 2));
}

// The columns ApplyChange never writes; a change to them is a caller bug.
bool SameImmutableFields(const Job& a, const Job& b) {
  return a.id == b.id && a.queue_name == b.queue_name && a.created_at == b.created_at &&
         a.idempotency_key == b.idempotency_key;
}

// Bit i−1 set for each mutable column ?i of sql::UpdateJobSql that differs.
uint32_t ChangedColumns(const Job& a, const Job& b) {
  const bool diffs[] = {a.status != b.status,
                        a.priority != b.priority,
                        a.retry_count != b.retry_count,
                        a.max_retries != b.max_retries,
                        a.timeout_seconds != b.timeout_seconds,
                        a.backoff.base != b.backoff.base,
                        a.backoff.max != b.backoff.max,
                        a.backoff.jitter != b.backoff.jitter,
                        a.last_error != b.last_error,
                        a.dead_reason != b.dead_reason,
                        a.updated_at != b.updated_at,
                        a.scheduled_at != b.scheduled_at,
                        a.started_at != b.started_at,
                        a.completed_at != b.completed_at,
                        a.expires_at != b.expires_at,
                        a.deadlettered_at != b.deadlettered_at,
                        a.assigned_worker_id != b.assigned_worker_id,
                        a.lease_id != b.lease_id,
                        a.lease_expires_at != b.lease_expires_at,
                        a.attempts != b.attempts,
                        a.lease_expiries != b.lease_expiries};
  static_assert(sizeof(diffs) == 21);
  uint32_t mask = 0;
  for (int i = 0; i < 21; ++i) mask |= diffs[i] ? (1u << i) : 0;
  return mask;
}

}  // namespace

Result<std::unique_ptr<SqliteWriteTx>> SqliteWriteTx::Begin(Connection& conn,
                                                            std::unique_lock<std::mutex> lock) {
  // IMMEDIATE takes the write lock now, so a transaction never fails
  // half-way with SQLITE_BUSY when it upgrades from reading to writing.
  REDRIVE_RETURN_IF_ERROR(conn.Exec("BEGIN IMMEDIATE"));
  return std::unique_ptr<SqliteWriteTx>(new SqliteWriteTx(conn, std::move(lock)));
}

SqliteWriteTx::~SqliteWriteTx() {
  if (!committed_ && conn().InTransaction()) conn().Exec("ROLLBACK");
}

Status SqliteWriteTx::CheckOpen() const {
  if (committed_) return Status::Internal("write transaction already committed");
  if (!conn().InTransaction()) {
    return Status::Unavailable("the database rolled the write transaction back after an error");
  }
  return Status::Ok();
}

Status SqliteWriteTx::Savepoint() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return conn().Exec("SAVEPOINT r");
}

Status SqliteWriteTx::ReleaseSavepoint() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return conn().Exec("RELEASE r");
}

Status SqliteWriteTx::RollbackToSavepoint() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  // ROLLBACK TO undoes the work but leaves the savepoint open; RELEASE
  // closes it so savepoints do not pile up across a group commit.
  REDRIVE_RETURN_IF_ERROR(conn().Exec("ROLLBACK TO r"));
  return conn().Exec("RELEASE r");
}

Status SqliteWriteTx::Commit() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  // With journal_mode=WAL and synchronous=FULL, COMMIT returns only after
  // the WAL has been fsync'd: the transaction is durable.
  REDRIVE_RETURN_IF_ERROR(conn().Exec("COMMIT"));
  committed_ = true;
  return Status::Ok();
}

Result<InsertOutcome> SqliteWriteTx::InsertJob(const Job& job, const HistoryEntry& created) {
  if (job.id.empty()) return Status::Internal("InsertJob: job has no id");
  if (job.idempotency_key) {
    // Look up first (the unique index makes this one probe) rather than
    // catching a constraint error, which would abort the statement.
    REDRIVE_ASSIGN_OR_RETURN(auto existing, FindIdempotencyKey(*job.idempotency_key));
    if (existing) return InsertOutcome{*existing, false};
  }
  std::string tags_json = EncodeTagsJson(job.tags);
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement insert, conn().Prepare(sql::kInsertJob));
    BindJob(insert, job, tags_json);
    REDRIVE_RETURN_IF_ERROR(insert.Run());
  }
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement insert, conn().Prepare(sql::kInsertPayload));
    insert.Bind(1, job.id);
    insert.Bind(2, job.payload);
    insert.Bind(3, job.result);
    REDRIVE_RETURN_IF_ERROR(insert.Run());
  }
  REDRIVE_RETURN_IF_ERROR(InsertTags(job.id, job.tags));
  REDRIVE_RETURN_IF_ERROR(InsertHistory(created, job.id));
  return InsertOutcome{job.id, true};
}

Status SqliteWriteTx::ApplyChange(const Change& change) {
  const Job& job = change.after;
  if (!SameImmutableFields(change.before, job)) {
    return Status::Internal("ApplyChange: id, queue_name, created_at and idempotency_key of job " +
                            job.id + " cannot change");
  }
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement update,
                             conn().Prepare(sql::UpdateJobSql(ChangedColumns(change.before, job))));
    BindJobUpdate(update, job);
    update.Bind(22, job.id);
    update.Bind(23, JobStatusName(change.guard_status));
    update.Bind(24, change.guard_lease_id);
    REDRIVE_RETURN_IF_ERROR(update.Run());
    if (update.Changes() == 0) {
      return Status::Conflict("job " + job.id + " is no longer " +
                              JobStatusName(change.guard_status) +
                              (change.guard_lease_id ? " under that lease" : ""));
    }
  }
  if (change.payload_changed) {
    REDRIVE_ASSIGN_OR_RETURN(Statement update, conn().Prepare(sql::kUpdatePayload));
    update.Bind(1, job.id);
    update.Bind(2, job.payload);
    REDRIVE_RETURN_IF_ERROR(update.Run());
  }
  if (change.result_changed) {
    REDRIVE_ASSIGN_OR_RETURN(Statement update, conn().Prepare(sql::kUpdateResult));
    update.Bind(1, job.id);
    update.Bind(2, job.result);
    REDRIVE_RETURN_IF_ERROR(update.Run());
  }
  if (change.before.tags != job.tags) REDRIVE_RETURN_IF_ERROR(ReplaceTags(job));
  if (change.history) REDRIVE_RETURN_IF_ERROR(InsertHistory(*change.history, job.id));
  return Status::Ok();
}

Status SqliteWriteTx::InsertHistory(const HistoryEntry& h, const std::string& job_id) {
  if (h.id.empty()) {
    return Status::Internal("history entry \"" + h.event_type + "\" of job " + job_id +
                            " has no id (core's NewHistoryEntry assigns it)");
  }
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kInsertHistory));
  stmt.Bind(1, h.id);
  stmt.Bind(2, job_id);
  stmt.Bind(3, h.event_type);
  stmt.Bind(4, h.worker_id);
  stmt.Bind(5, h.details_json);
  stmt.Bind(6, h.created_at);
  return stmt.Run();
}

Status SqliteWriteTx::InsertTags(const std::string& job_id, const Tags& tags) {
  for (const auto& [key, value] : tags) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kInsertTag));
    stmt.Bind(1, job_id);
    stmt.Bind(2, key);
    stmt.Bind(3, value);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  return Status::Ok();
}

// Tags do not change in any transition today; this keeps the jobs.tags JSON
// and the job_tags rows in step should one ever do so.
Status SqliteWriteTx::ReplaceTags(const Job& job) {
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement del, conn().Prepare(sql::kDeleteTags));
    del.Bind(1, job.id);
    REDRIVE_RETURN_IF_ERROR(del.Run());
  }
  std::string tags_json = EncodeTagsJson(job.tags);
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement update, conn().Prepare(sql::kUpdateTagsJson));
    update.Bind(1, job.id);
    update.Bind(2, tags_json);
    REDRIVE_RETURN_IF_ERROR(update.Run());
  }
  return InsertTags(job.id, job.tags);
}

}  // namespace redrive::store::sqlite
