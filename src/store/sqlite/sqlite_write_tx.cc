// Transaction control and the job writes of SqliteWriteTx. The selects and
// the queue/worker writes are in sqlite_write_selects.cc.
#include "store/sqlite/sqlite_write_tx.h"

#include <cstdint>
#include <string>

#include "store/sqlite/history_codec.h"
#include "store/sqlite/job_columns.h"
#include "store/sqlite/job_sql.h"
#include "store/sqlite/row_mapping.h"

namespace redrive::store::sqlite {
namespace {

// A job's queue, whose name must be in queue_names before it is written.
constexpr JobColumnSet kQueueColumn = ColumnBit(JobColumnIndex("queue_id"));

// The first fixed column in `changed`, which ApplyChange refuses to write:
// a change to it is a caller bug (no transition changes them).
const char* FirstFixedColumn(JobColumnSet changed) {
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (changed & kFixedColumns & ColumnBit(i)) return kJobColumns[i].name;
  }
  return nullptr;
}

// The id is derived when read (history_codec.h), but an entry without one
// is a bug in core the store reports, as PostgreSQL's does (store.h).
Status RequireHistoryId(const HistoryEntry& h, const std::string& job_id) {
  if (!h.id.empty()) return Status::Ok();
  return Status::Internal("history entry \"" + h.event_type + "\" of job " + job_id +
                          " has no id (core's NewHistoryEntry assigns it)");
}

// A job holds a lease, its three fields, exactly while it is processing
// (PostgreSQL's CHECKs say so too; here job_leases has a row only for a job
// that holds one). Anything else is a bug in core, refused before a write.
Status CheckLease(const Job& job) {
  const int fields = int{job.assigned_worker_id.has_value()} + int{job.lease_id.has_value()} +
                     int{job.lease_expires_at.has_value()};
  const bool processing = job.status == JobStatus::kProcessing;
  if (fields == (processing ? 3 : 0)) return Status::Ok();
  return Status::Internal(
      "job " + job.id +
      (processing ? " is processing without a whole lease" : " holds a lease outside processing"));
}

Status InsertLease(Connection& conn, int64_t seq, const Job& job) {
  REDRIVE_ASSIGN_OR_RETURN(Statement insert, conn.Prepare(sql::InsertLeaseSql()));
  BindColumns(insert, job, kLeaseColumns);
  insert.Bind(sql::kLeaseJobSeqParam, seq);
  return insert.Run();
}

// Writes the lease of `after` over that of `before` (both checked) for the
// job `seq`: its row of job_leases inserted, updated or deleted.
Status WriteLease(Connection& conn, int64_t seq, const Job& before, const Job& after,
                  JobColumnSet changed) {
  if (!(changed & kLeaseColumns)) return Status::Ok();
  if (!after.lease_id) {
    REDRIVE_ASSIGN_OR_RETURN(Statement remove, conn.Prepare(sql::kDeleteLease));
    remove.Bind(1, seq);
    return remove.Run();
  }
  if (!before.lease_id) return InsertLease(conn, seq, after);
  REDRIVE_ASSIGN_OR_RETURN(Statement update, conn.Prepare(sql::UpdateLeaseSql(changed)));
  BindColumns(update, after, kLeaseColumns);
  update.Bind(sql::kLeaseJobSeqParam, seq);
  return update.Run();
}

}  // namespace

Result<std::unique_ptr<SqliteWriteTx>> SqliteWriteTx::Begin(Connection& conn,
                                                            std::unique_lock<std::mutex> lock,
                                                            CommitHealth& health,
                                                            WalSync* wal_sync) {
  REDRIVE_RETURN_IF_ERROR(health.CheckWritable());
  // IMMEDIATE takes the write lock now, so a transaction never fails
  // half-way with SQLITE_BUSY when it upgrades from reading to writing.
  std::unique_ptr<SqliteWriteTx> tx(new SqliteWriteTx(conn, std::move(lock), health, wal_sync));
  if (Status st = conn.Exec("BEGIN IMMEDIATE"); !st.ok()) return tx->RecordFailure(st);
  tx->changes_at_begin_ = sqlite3_total_changes64(conn.db());
  return tx;
}

SqliteWriteTx::~SqliteWriteTx() {
  if (!committed_ && conn().InTransaction()) conn().Exec("ROLLBACK");
}

Status SqliteWriteTx::CheckOpen() {
  if (committed_) return Status::Internal("write transaction already committed");
  if (!conn().InTransaction()) {
    return RecordFailure(
        Status::Unavailable("the database rolled the write transaction back after an error"));
  }
  return Status::Ok();
}

Status SqliteWriteTx::RecordFailure(const Status& st) {
  sqlite3* db = conn().db();
  int rc = sqlite3_extended_errcode(db);
  // The connection's latest error is the one that failed us; if a later
  // call succeeded meanwhile, report the failure as a generic error.
  if (rc == SQLITE_OK) rc = SQLITE_ERROR;
  const char* file = sqlite3_db_filename(db, "main");
  return health_.Record(rc, file != nullptr ? file : "", st.message());
}

Status SqliteWriteTx::Savepoint() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  count_deltas_.Mark();
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
  count_deltas_.RollbackToMark();
  return conn().Exec("RELEASE r");
}

Status SqliteWriteTx::Commit() {
  REDRIVE_RETURN_IF_ERROR(CommitWithoutSync());
  if (wal_sync_ != nullptr) return wal_sync_->Sync().status();
  return Status::Ok();
}

Status SqliteWriteTx::CommitWithoutSync() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  REDRIVE_RETURN_IF_ERROR(WriteCounts());
  // With journal_mode=WAL and synchronous=FULL, COMMIT returns only after
  // the WAL has been fsync'd: the transaction is durable. With NORMAL (the
  // pipelined store) it returns once the WAL is written, and the commit is
  // durable after the next WalSync::Sync().
  if (wal_sync_ != nullptr) wal_sync_->CommitStarting();
  Status st = conn().Exec("COMMIT");
  if (!st.ok()) st = RecordFailure(st);  // before anything else calls SQLite
  // A commit that changed no row wrote nothing to the WAL (a failed one
  // may have: counted as written).
  const bool wrote = !st.ok() || sqlite3_total_changes64(conn().db()) != changes_at_begin_;
  if (wal_sync_ != nullptr) wal_sync_->CommitEnded(conn().db(), wrote);
  if (!st.ok()) return st;
  committed_ = true;
  // Only a commit that wrote rows shows the disk takes writes again (one
  // that wrote nothing commits without touching the file).
  if (wrote) return health_.Record(SQLITE_OK, "", "");
  return Status::Ok();
}

Result<InsertOutcome> SqliteWriteTx::InsertJob(const Job& job, const HistoryEntry& created) {
  if (job.id.empty()) return Status::Internal("InsertJob: job has no id");
  REDRIVE_RETURN_IF_ERROR(CheckLease(job));
  if (job.idempotency_key) {
    // Look up first (the unique index makes this one probe) rather than
    // catching a constraint error, which would abort the statement.
    REDRIVE_ASSIGN_OR_RETURN(auto existing, FindIdempotencyKey(*job.idempotency_key));
    if (existing) return InsertOutcome{*existing, false};
  }
  REDRIVE_RETURN_IF_ERROR(InternQueue(job.queue_name));
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement insert, conn().Prepare(sql::InsertJobSql()));
    BindColumns(insert, job, kJobsTableColumns);
    REDRIVE_RETURN_IF_ERROR(insert.Run());
  }
  // seq is the row's rowid, and jobs has no trigger that could insert after it.
  const int64_t seq = sqlite3_last_insert_rowid(conn().db());
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement insert, conn().Prepare(sql::InsertPayloadsSql()));
    BindColumns(insert, job, kPayloadsColumns);
    insert.Bind(sql::kPayloadsJobSeqParam, seq);
    REDRIVE_RETURN_IF_ERROR(insert.Run());
  }
  if (job.lease_id) REDRIVE_RETURN_IF_ERROR(InsertLease(conn(), seq, job));
  REDRIVE_RETURN_IF_ERROR(InsertTags(job.id, job.tags));
  REDRIVE_RETURN_IF_ERROR(RequireHistoryId(created, job.id));
  REDRIVE_RETURN_IF_ERROR(WriteHistorySegment(seq, 0, history::FirstSegment(created)));
  count_deltas_.Add(job.queue_name, job.status, 1);
  return InsertOutcome{job.id, true};
}

Status SqliteWriteTx::ApplyChange(const Change& change) {
  const Job& before = change.before;
  const Job& job = change.after;
  const JobColumnSet changed = ChangedColumns(before, job);
  if (const char* fixed = FirstFixedColumn(changed)) {
    return Status::Internal(std::string("ApplyChange: ") + fixed + " of job " + job.id +
                            " cannot change");
  }
  REDRIVE_RETURN_IF_ERROR(CheckLease(job));
  if (change.history) REDRIVE_RETURN_IF_ERROR(RequireHistoryId(*change.history, job.id));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<ChangeTarget> target,
                           FindChangeTarget(job.id, change.history.has_value()));
  if (!target) return GuardFailed(change);  // deleted since it was read
  const int64_t seq = target->seq;
  if (changed & kQueueColumn) REDRIVE_RETURN_IF_ERROR(InternQueue(job.queue_name));
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement update, conn().Prepare(sql::UpdateJobSql(changed)));
    BindColumns(update, job, kUpdatedColumns);
    // The guard: the row is still as `before` was read.
    update.Bind(sql::kGuardSeqParam, seq);
    update.Bind(sql::kGuardStatusParam, JobStatusName(before.status));
    update.Bind(sql::kGuardLeaseIdParam, before.lease_id);
    REDRIVE_RETURN_IF_ERROR(update.Run());
    if (update.Changes() == 0) return GuardFailed(change);
  }
  if (changed & kPayloadsColumns) {
    REDRIVE_ASSIGN_OR_RETURN(Statement update, conn().Prepare(sql::UpdatePayloadsSql(changed)));
    BindColumns(update, job, kPayloadsColumns);
    update.Bind(sql::kPayloadsJobSeqParam, seq);
    REDRIVE_RETURN_IF_ERROR(update.Run());
  }
  REDRIVE_RETURN_IF_ERROR(WriteLease(conn(), seq, before, job, changed));
  if (change.history) REDRIVE_RETURN_IF_ERROR(AppendHistory(*change.history, *target));
  count_deltas_.AddChange(before, job);
  return Status::Ok();
}

Status SqliteWriteTx::WriteCounts() {
  for (const auto& [key, delta] : count_deltas_.Sums()) {
    const std::string_view status = JobStatusName(key.second);
    {
      REDRIVE_ASSIGN_OR_RETURN(Statement add, conn().Prepare(sql::kAddToCount));
      add.Bind(1, key.first);
      add.Bind(2, status);
      add.Bind(3, static_cast<int64_t>(delta));
      REDRIVE_RETURN_IF_ERROR(add.Run());
      if (add.Changes() > 0) continue;
    }
    REDRIVE_ASSIGN_OR_RETURN(Statement insert, conn().Prepare(sql::kInsertCount));
    insert.Bind(1, key.first);
    insert.Bind(2, status);
    insert.Bind(3, static_cast<int64_t>(delta));
    REDRIVE_RETURN_IF_ERROR(insert.Run());
  }
  count_deltas_.Clear();
  return Status::Ok();
}

Result<StatusCounts> SqliteWriteTx::CountJobs(const std::optional<std::string>& queue_name) {
  REDRIVE_ASSIGN_OR_RETURN(StatusCounts counts, SqliteReads::CountJobs(queue_name));
  return count_deltas_.AddedTo(counts, queue_name);
}

Result<std::optional<SqliteWriteTx::ChangeTarget>> SqliteWriteTx::FindChangeTarget(
    const std::string& job_id, bool with_history) {
  REDRIVE_ASSIGN_OR_RETURN(Statement read,
                           conn().Prepare(with_history ? sql::kLastHistorySegment : sql::kGetSeq));
  read.Bind(1, job_id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, read.Step());
  if (!row) return std::optional<ChangeTarget>();
  ChangeTarget target;
  target.seq = read.Int64(0);
  if (with_history && !read.IsNull(1)) {
    target.last_seg = read.Int64(1);
    const std::span<const uint8_t> bytes = read.Blob(2);
    target.last_entries.assign(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  }
  return std::optional<ChangeTarget>(std::move(target));
}

Status SqliteWriteTx::AppendHistory(const HistoryEntry& h, ChangeTarget& target) {
  std::string& segment = target.last_entries;
  REDRIVE_ASSIGN_OR_RETURN(history::SegmentTail tail, history::TailOf(history::BytesOf(segment)));
  if (history::AppendIfFits(segment, tail, h)) {
    return WriteHistorySegment(target.seq, target.last_seg, segment);
  }
  return WriteHistorySegment(target.seq, target.last_seg + 1, history::FirstSegment(h));
}

Status SqliteWriteTx::WriteHistorySegment(int64_t seq, int64_t seg, const std::string& entries) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kWriteHistorySegment));
  stmt.Bind(1, seq);
  stmt.Bind(2, seg);
  stmt.BindBlobCopy(3, history::BytesOf(entries));
  return stmt.Run();
}

Status SqliteWriteTx::InternQueue(const std::string& queue) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn().Prepare(sql::kInternQueue));
  stmt.Bind(1, queue);
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

}  // namespace redrive::store::sqlite
