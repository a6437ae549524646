// Transaction control and the job writes of PgWriteTx. The selects and the
// queue/worker/webhook writes are in pg_write_selects.cc.
#include "store/postgres/pg_write_tx.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include "store/postgres/pg_job_columns.h"
#include "store/postgres/pg_job_sql.h"
#include "store/postgres/pg_row_mapping.h"

namespace redrive::store::postgres {
namespace {

// The first fixed column in `changed`: a change to it is a caller bug (no
// transition changes them).
const char* FirstFixedColumn(PgColumnSet changed) {
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (changed & kPgFixedColumns & PgColumnBit(i)) return kPgJobColumns[i].name;
  }
  return nullptr;
}

Status RequireHistoryId(const HistoryEntry& h, const std::string& job_id) {
  if (!h.id.empty()) return Status::Ok();
  return Status::Internal("history entry \"" + h.event_type + "\" of job " + job_id +
                          " has no id (core's NewHistoryEntry assigns it)");
}

void BindHistory(PgParams& p, const HistoryEntry& h) {
  p.AddRef(h.id);
  p.AddRef(h.event_type);
  p.AddRef(h.worker_id);
  p.AddRef(h.details_json);
  p.Add(h.created_at);
  p.AddRef(h.node_id);
}

}  // namespace

PgWriteTx::~PgWriteTx() {
  // If ROLLBACK fails the connection is still in a transaction (or lost),
  // and the pool closes it instead of reusing it.
  if (!committed_ && held->healthy() && held->InTransaction()) (void)held->Exec("ROLLBACK");
}

Status PgWriteTx::CheckOpen() const {
  if (committed_) return Status::Internal("write transaction already committed");
  if (!held->healthy()) return Status::Unavailable("postgresql connection lost");
  return Status::Ok();
}

Status PgWriteTx::Control(const char* sql) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return held->Exec(sql).status();
}

Status PgWriteTx::Savepoint() { return Control("SAVEPOINT sp"); }

Status PgWriteTx::ReleaseSavepoint() { return Control("RELEASE SAVEPOINT sp"); }

Status PgWriteTx::RollbackToSavepoint() {
  // ROLLBACK TO keeps the savepoint; RELEASE closes it so they do not pile up.
  return Control("ROLLBACK TO SAVEPOINT sp; RELEASE SAVEPOINT sp");
}

Status PgWriteTx::Commit() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  // COMMIT of a transaction a failed statement aborted succeeds as a
  // ROLLBACK: that must not pass for a commit.
  const bool failed = PQtransactionStatus(held->get()) == PQTRANS_INERROR;
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->Exec("COMMIT"));
  committed_ = true;
  if (failed || std::strcmp(PQcmdStatus(r.get()), "COMMIT") != 0) {
    return Status::Internal("the transaction was rolled back after an earlier error");
  }
  return Status::Ok();
}

namespace {

Status BindInsert(const Job& job, const HistoryEntry& created, PgParams& p) {
  if (job.id.empty()) return Status::Internal("InsertJob: job has no id");
  REDRIVE_RETURN_IF_ERROR(RequireHistoryId(created, job.id));
  BindPgColumns(p, job, kPgAllColumns);
  BindHistory(p, created);
  return Status::Ok();
}

}  // namespace

Result<InsertOutcome> PgWriteTx::Inserted(const Job& job, const PgResult& r) {
  if (r.rows() == 1) return InsertOutcome{job.id, true};
  if (!job.idempotency_key) return Status::Internal("InsertJob: job " + job.id + " not inserted");
  // The key is taken. This statement reads a new snapshot, which has the
  // holder ON CONFLICT waited for (or the earlier job of the same batch).
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> holder,
                           FindIdempotencyKey(*job.idempotency_key));
  if (!holder) {
    // Its holder was deleted in between: run the request again.
    return Status::Aborted("idempotency key " + *job.idempotency_key + " changed hands");
  }
  return InsertOutcome{*holder, false};
}

Result<InsertOutcome> PgWriteTx::InsertJob(const Job& job, const HistoryEntry& created) {
  PgParams p;
  REDRIVE_RETURN_IF_ERROR(BindInsert(job, created, p));
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::InsertJobSql(), p));
  return Inserted(job, r);
}

Result<std::vector<InsertOutcome>> PgWriteTx::InsertJobs(const std::vector<NewJob>& jobs) {
  std::deque<PgParams> params;
  std::vector<std::pair<std::string_view, const PgParams*>> commands;
  commands.reserve(jobs.size());
  for (const NewJob& j : jobs) {
    REDRIVE_RETURN_IF_ERROR(BindInsert(j.job, j.created, params.emplace_back()));
    commands.emplace_back(sql::InsertJobSql(), &params.back());
  }
  REDRIVE_ASSIGN_OR_RETURN(std::vector<PgResult> results, held->ExecPreparedBatch(commands));
  std::vector<InsertOutcome> out;
  out.reserve(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    REDRIVE_ASSIGN_OR_RETURN(InsertOutcome o, Inserted(jobs[i].job, results[i]));
    out.push_back(std::move(o));
  }
  return out;
}

Result<ClaimReads> PgWriteTx::ReadForClaim(const std::string& queue_name,
                                           const std::string& worker_id, Instant now, int limit) {
  PgParams queue, worker, due, claimable;
  queue.AddRef(queue_name);
  worker.AddRef(worker_id);
  due.Add(now);
  due.Add(limit);
  due.AddRef(queue_name);
  claimable.AddRef(queue_name);
  claimable.Add(now);
  claimable.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(std::vector<PgResult> r,
                           held->ExecPreparedBatch({{kGetPgQueue, &queue},
                                                    {kGetPgWorker, &worker},
                                                    {sql::kSelectDueScheduledInQueue, &due},
                                                    {sql::kSelectClaimable, &claimable}}));
  ClaimReads out;
  if (r[0].rows() == 1) out.queue = ReadPgQueue(r[0], 0);
  if (r[1].rows() == 1) out.worker = ReadPgWorker(r[1], 0);
  REDRIVE_ASSIGN_OR_RETURN(out.due, PgJobs(r[2]));
  REDRIVE_ASSIGN_OR_RETURN(out.claimable, PgJobs(r[3]));
  return out;
}

namespace {

// The guarded update of `change`: its statement and parameters.
Status BindChange(const Change& change, PgParams& p, std::string_view* sql) {
  const Job& before = change.before;
  const Job& job = change.after;
  const PgColumnSet changed = ChangedPgColumns(before, job);
  if (const char* fixed = FirstFixedColumn(changed)) {
    return Status::Internal(std::string("ApplyChange: ") + fixed + " of job " + job.id +
                            " cannot change");
  }
  if (change.history) REDRIVE_RETURN_IF_ERROR(RequireHistoryId(*change.history, job.id));
  BindPgColumns(p, job, sql::AssignedColumns(changed));
  // The guard: the row is still as `before` was read.
  p.AddRef(job.id);
  p.Add(JobStatusName(before.status));
  p.AddRef(before.lease_id);
  if (change.history) BindHistory(p, *change.history);
  *sql = sql::UpdateJobSql(changed, change.history.has_value());
  return Status::Ok();
}

bool Written(const Change& change, const PgResult& r) {
  return (change.history ? r.rows() : r.affected()) > 0;
}

}  // namespace

Status PgWriteTx::ApplyChange(const Change& change) {
  PgParams p;
  std::string_view sql;
  REDRIVE_RETURN_IF_ERROR(BindChange(change, p, &sql));
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql, p));
  if (!Written(change, r)) return GuardFailed(change);
  return Status::Ok();
}

Result<std::vector<bool>> PgWriteTx::ApplyChanges(const std::vector<Change>& changes) {
  std::deque<PgParams> params;
  std::vector<std::pair<std::string_view, const PgParams*>> commands;
  commands.reserve(changes.size());
  for (const Change& c : changes) {
    std::string_view sql;
    REDRIVE_RETURN_IF_ERROR(BindChange(c, params.emplace_back(), &sql));
    commands.emplace_back(sql, &params.back());
  }
  REDRIVE_ASSIGN_OR_RETURN(auto results, held->ExecPreparedBatch(commands));
  std::vector<bool> applied;
  applied.reserve(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) applied.push_back(Written(changes[i], results[i]));
  return applied;
}

}  // namespace redrive::store::postgres
