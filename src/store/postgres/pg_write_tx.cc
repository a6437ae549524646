// Transaction control and the job writes of PgWriteTx. The selects and the
// queue/worker/webhook writes are in pg_write_selects.cc.
#include "store/postgres/pg_write_tx.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <map>
#include <string_view>
#include <unordered_set>

#include "store/postgres/pg_job_columns.h"
#include "store/postgres/pg_job_sql.h"
#include "store/postgres/pg_row_mapping.h"
#include "store/postgres/pg_workflow_sql.h"

namespace redrive::store::postgres {
namespace {

// Rows fewer than this are read or written one statement each (in one
// pipeline), not as one statement over an array (GetJobs, ApplyChanges): for
// a few rows the set form's fixed part costs more than the statements it
// saves. Measured in single-job mode, where groups of requests are small
// (bench/pg-cost.sh --mode single): 4 ran 2,486-2,793 jobs/s against
// 2,422-2,490 with 8, and 2 was slower than 8. The array form's cached
// generic plan is made with the statistics of its time, and finds its rows
// by key whatever they said (kSessionPlanning, pg_connection.h).
constexpr size_t kMinRowsForArrayForm = 4;

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

Result<PgResult> PgWriteTx::Begin(PgConnection& conn) {
  PgParams none;
  REDRIVE_ASSIGN_OR_RETURN(
      std::vector<PgResult> r,
      conn.ExecPreparedBatch({{kBegin, &none}, {kReadWebhooksVersion, &none}}));
  return std::move(r.back());
}

PgWriteTx::~PgWriteTx() {
  if (committed_) return;
  held->DiscardDeferred();
  // Why the transaction did not commit, if the database could not write.
  health_.RecordWriteError(held->last_sqlstate(), held->last_error());
  // If ROLLBACK fails the connection is still in a transaction (or lost),
  // and the pool closes it instead of reusing it.
  if (held->healthy() && held->InTransaction()) (void)held->Exec("ROLLBACK");
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

// SAVEPOINT and RELEASE ride with the next statement (deferred, prepared),
// as the writes around them do: a savepoint per op costs no round trip.
// ROLLBACK TO sends what is deferred first, then undoes it.
Status PgWriteTx::Savepoint() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  count_deltas_.Mark();
  held->Defer("SAVEPOINT sp", PgParams());
  return Status::Ok();
}

Status PgWriteTx::ReleaseSavepoint() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  held->Defer("RELEASE SAVEPOINT sp", PgParams());
  return Status::Ok();
}

Status PgWriteTx::RollbackToSavepoint() {
  // The rows written or locked since the savepoint are not any more.
  locked_.clear();
  count_deltas_.RollbackToMark();
  // ROLLBACK TO keeps the savepoint; RELEASE closes it so they do not pile up.
  return Control("ROLLBACK TO SAVEPOINT sp; RELEASE SAVEPOINT sp");
}

Status PgWriteTx::WriteProbe() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return held->Exec("UPDATE redrive.write_probe SET probes = probes + 1 WHERE id = 1").status();
}

Status PgWriteTx::Commit() {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  // COMMIT of a transaction a failed statement aborted succeeds as a
  // ROLLBACK: that must not pass for a commit.
  const bool failed = PQtransactionStatus(held->get()) == PQTRANS_INERROR;
  DeferCounts();
  const uint64_t token = health_.CommitStarted(std::chrono::steady_clock::now());
  // Prepared, so that the deferred writes ride with it; if one fails the
  // COMMIT does not run and this fails with its error.
  auto r = held->ExecPrepared("COMMIT", PgParams());
  const bool committed = r.ok() && !failed && std::strcmp(PQcmdStatus(r->get()), "COMMIT") == 0;
  health_.CommitFinished(token, committed);
  REDRIVE_RETURN_IF_ERROR(r.status());
  committed_ = true;
  if (!committed) {
    health_.RecordWriteError(held->last_sqlstate(), held->last_error());
    return Status::Internal("the transaction was rolled back after an earlier error");
  }
  return Status::Ok();
}

namespace {

// `rows` are bound alike (one statement's parameters each); `out` gets,
// for each parameter, the array of its values over the rows: the
// parameters of the set-based form (pg_job_sql.h).
// REQUIRES: `rows` is not empty.
void BindColumnsOfRows(const std::deque<PgParams>& rows, PgParams& out) {
  std::vector<const char*> column(rows.size());
  for (int k = 0; k < rows.front().size(); ++k) {
    for (size_t r = 0; r < rows.size(); ++r) column[r] = rows[r].values()[k];
    out.AddArray(column);
  }
}

Status BindInsert(const Job& job, const HistoryEntry& created, PgParams& p) {
  if (job.id.empty()) return Status::Internal("InsertJob: job has no id");
  REDRIVE_RETURN_IF_ERROR(RequireHistoryId(created, job.id));
  BindPgColumns(p, job, kPgAllColumns);
  BindHistory(p, created);
  return Status::Ok();
}

}  // namespace

Result<InsertOutcome> PgWriteTx::Inserted(const Job& job, const PgResult& r) {
  if (r.rows() == 1) {
    count_deltas_.Add(job.queue_name, job.status, 1);
    return InsertOutcome{job.id, true};
  }
  return TakenKey(job);
}

void PgWriteTx::DeferCounts() {
  std::vector<std::string> queues, statuses, deltas;
  for (const auto& [key, delta] : count_deltas_.Sums()) {
    queues.push_back(key.first);
    statuses.emplace_back(JobStatusName(key.second));
    deltas.push_back(std::to_string(delta));
  }
  count_deltas_.Clear();
  if (queues.empty()) return;
  PgParams p;
  p.AddTextArray(queues);
  p.AddTextArray(statuses);
  p.AddTextArray(deltas);
  held->Defer(sql::kAddToCounts, p.Owned());
}

Result<StatusCounts> PgWriteTx::CountJobs(const std::optional<std::string>& queue_name) {
  REDRIVE_ASSIGN_OR_RETURN(StatusCounts counts, PgReads::CountJobs(queue_name));
  return count_deltas_.AddedTo(counts, queue_name);
}

Result<InsertOutcome> PgWriteTx::TakenKey(const Job& job) {
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

Result<std::vector<Job>> PgWriteTx::Locked(Result<std::vector<Job>> jobs) {
  if (jobs.ok()) {
    for (const Job& j : *jobs) Wrote(j);
  }
  return jobs;
}

Result<std::vector<Job>> PgWriteTx::GetJobs(const std::vector<std::string>& ids) {
  if (ids.empty()) return std::vector<Job>();
  PgParams id_array;
  id_array.AddTextArray(ids);
  // A few ids are read one statement each (in one pipeline, in id order as
  // kGetJobsForUpdate locks them): by the primary key whatever the cached
  // plan of the array form believes of the table's size (see
  // kMinRowsForArrayForm).
  std::vector<std::string> sorted;
  std::deque<PgParams> one_id;
  std::vector<std::pair<std::string_view, const PgParams*>> commands;
  if (ids.size() < kMinRowsForArrayForm) {
    sorted = ids;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (const std::string& id : sorted) {
      one_id.emplace_back().AddRef(id);
      commands.emplace_back(sql::kGetJobForUpdate, &one_id.back());
    }
  } else {
    commands.emplace_back(sql::kGetJobsForUpdate, &id_array);
  }
  // The last statement takes its snapshot after the first ones have locked
  // the rows (READ COMMITTED): it sees every dependency committed on them.
  commands.emplace_back(workflow_sql::kAwaitedJobs, &id_array);
  REDRIVE_ASSIGN_OR_RETURN(std::vector<PgResult> r, held->ExecPreparedBatch(commands));
  std::vector<Job> jobs;
  for (size_t i = 0; i + 1 < r.size(); ++i) {
    REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> some, Locked(PgJobs(r[i])));
    for (Job& j : some) jobs.push_back(std::move(j));
  }
  std::unordered_set<std::string_view> awaited;
  for (int i = 0; i < r.back().rows(); ++i) awaited.insert(r.back().Text(i, 0));
  for (const Job& j : jobs) locked_[j.id].awaited = awaited.contains(j.id);
  return jobs;
}

Result<Job> PgWriteTx::GetJob(const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> jobs, GetJobs({id}));
  if (jobs.empty()) return Status::NotFound("job " + id + " not found");
  return std::move(jobs.front());
}

bool PgWriteTx::GuardHolds(const Change& change) const {
  auto it = locked_.find(change.after.id);
  return it != locked_.end() && change.before.id == change.after.id &&
         it->second.status == change.before.status && it->second.lease_id == change.before.lease_id;
}

void PgWriteTx::Wrote(const Job& job) {
  LockedRow& row = locked_[job.id];  // keeps what is known of its dependents
  row.status = job.status;
  row.lease_id = job.lease_id;
}

Result<InsertOutcome> PgWriteTx::InsertJob(const Job& job, const HistoryEntry& created) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  PgParams p;
  REDRIVE_RETURN_IF_ERROR(BindInsert(job, created, p));
  if (!job.idempotency_key) {
    // Without a key there is nothing to conflict with: the row is inserted
    // or the statement fails, and then so does the one it rides with (the
    // COMMIT at the latest). No round trip of its own.
    held->Defer(sql::InsertJobSql(), p.Owned());
    count_deltas_.Add(job.queue_name, job.status, 1);
    return InsertOutcome{job.id, true};
  }
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::InsertJobSql(), p));
  return Inserted(job, r);
}

Result<std::vector<InsertOutcome>> PgWriteTx::InsertJobs(const std::vector<NewJob>& jobs) {
  if (jobs.empty()) return std::vector<InsertOutcome>{};
  if (jobs.size() == 1) {
    REDRIVE_ASSIGN_OR_RETURN(InsertOutcome o, InsertJob(jobs[0].job, jobs[0].created));
    return std::vector<InsertOutcome>{std::move(o)};
  }
  // One statement for the batch: each row bound as InsertJob binds it, then
  // the rows' values passed as one array per parameter.
  std::deque<PgParams> rows;
  for (const NewJob& j : jobs)
    REDRIVE_RETURN_IF_ERROR(BindInsert(j.job, j.created, rows.emplace_back()));
  PgParams p;
  BindColumnsOfRows(rows, p);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql::InsertJobsSql(), p));
  std::unordered_set<std::string_view> inserted;
  for (int i = 0; i < r.rows(); ++i) inserted.insert(r.Text(i, 0));
  std::vector<InsertOutcome> out;
  out.reserve(jobs.size());
  for (const NewJob& j : jobs) {
    if (inserted.contains(j.job.id)) {
      count_deltas_.Add(j.job.queue_name, j.job.status, 1);
      out.push_back(InsertOutcome{j.job.id, true});
      continue;
    }
    REDRIVE_ASSIGN_OR_RETURN(InsertOutcome o, TakenKey(j.job));
    out.push_back(std::move(o));
  }
  return out;
}

Result<ClaimReads> PgWriteTx::ReadForClaim(const std::string& queue_name,
                                           std::span<const std::string> worker_ids, Instant now,
                                           int limit) {
  PgParams queue, worker, due, claimable;
  queue.AddRef(queue_name);
  worker.AddTextArray({worker_ids.begin(), worker_ids.end()});
  due.Add(now);
  due.Add(limit);
  due.AddRef(queue_name);
  claimable.AddRef(queue_name);
  claimable.Add(now);
  claimable.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(std::vector<PgResult> r,
                           held->ExecPreparedBatch({{kGetPgQueue, &queue},
                                                    {kGetPgWorkers, &worker},
                                                    {sql::kSelectDueScheduledInQueue, &due},
                                                    {sql::kSelectClaimable, &claimable}}));
  ClaimReads out;
  if (r[0].rows() == 1) out.queue = ReadPgQueue(r[0], 0);
  for (int i = 0; i < r[1].rows(); ++i) out.workers.push_back(ReadPgWorker(r[1], i));
  REDRIVE_ASSIGN_OR_RETURN(out.due, Locked(PgJobs(r[2])));
  REDRIVE_ASSIGN_OR_RETURN(out.claimable, Locked(PgJobs(r[3])));
  return out;
}

namespace {

// The guarded update of `change`: its statement and parameters, and (if
// asked) the columns it assigns.
Status BindChange(const Change& change, PgParams& p, std::string_view* sql,
                  PgColumnSet* assigned = nullptr) {
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
  if (assigned != nullptr) *assigned = sql::AssignedColumns(changed);
  return Status::Ok();
}

bool Written(const Change& change, const PgResult& r) {
  return (change.history ? r.rows() : r.affected()) > 0;
}

}  // namespace

Status PgWriteTx::ApplyChange(const Change& change) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  if (GuardHolds(change)) return DeferChanges({change});
  PgParams p;
  std::string_view sql;
  REDRIVE_RETURN_IF_ERROR(BindChange(change, p, &sql));
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, held->ExecPrepared(sql, p));
  if (!Written(change, r)) return GuardFailed(change);
  Wrote(change.after);
  count_deltas_.AddChange(change.before, change.after);
  return Status::Ok();
}

Status PgWriteTx::DeferChanges(const std::vector<Change>& changes) {
  // As ApplyChanges groups them, in the checked forms.
  struct Group {
    std::vector<size_t> members;
    std::deque<PgParams> rows;
    bool history = false;
    PgColumnSet changed = 0;
  };
  std::map<std::pair<PgColumnSet, bool>, Group> groups;
  for (size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    std::string_view ignored;
    PgParams row;
    PgColumnSet assigned = 0;
    REDRIVE_RETURN_IF_ERROR(BindChange(c, row, &ignored, &assigned));
    Group& g = groups[{assigned, c.history.has_value()}];
    g.members.push_back(i);
    g.rows.push_back(std::move(row));
    g.history = c.history.has_value();
    g.changed = assigned;
  }
  for (auto& [key, g] : groups) {
    if (g.members.size() < kMinRowsForArrayForm) {
      for (const PgParams& row : g.rows) {
        held->Defer(sql::CheckedUpdateJobSql(g.changed, g.history), row.Owned());
      }
      continue;
    }
    PgParams arrays;
    BindColumnsOfRows(g.rows, arrays);  // copies every value
    held->Defer(sql::CheckedUpdateJobsSql(g.changed, g.history), std::move(arrays));
  }
  for (const Change& c : changes) {
    Wrote(c.after);
    count_deltas_.AddChange(c.before, c.after);  // a failed guard fails the commit, counts and all
  }
  return Status::Ok();
}

Result<std::vector<bool>> PgWriteTx::ApplyChanges(const std::vector<Change>& changes) {
  // One set-based statement per kind of change (the columns it assigns,
  // with or without history): a batch of claims is one, a batch of acks
  // one or two. A job changed twice in one call takes one statement per
  // change, in order.
  if (changes.empty()) return std::vector<bool>{};
  std::unordered_set<std::string_view> ids;
  bool hold = true;
  for (const Change& c : changes) {
    if (!ids.insert(c.after.id).second) return ApplyEach(changes);
    hold = hold && GuardHolds(c);
  }
  if (hold) {
    REDRIVE_RETURN_IF_ERROR(DeferChanges(changes));
    return std::vector<bool>(changes.size(), true);
  }
  struct Group {
    std::string_view sql;
    std::string_view single_sql;  // the one-row form, for a group of one
    std::vector<size_t> members;  // indexes into `changes`
    std::deque<PgParams> rows;
    PgParams arrays;
  };
  std::map<std::pair<PgColumnSet, bool>, Group> groups;
  for (size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    std::string_view single;
    PgParams row;
    PgColumnSet assigned = 0;
    REDRIVE_RETURN_IF_ERROR(BindChange(c, row, &single, &assigned));
    Group& g = groups[{assigned, c.history.has_value()}];
    if (g.sql.empty()) g.sql = sql::UpdateJobsSql(assigned, c.history.has_value());
    g.single_sql = single;
    g.members.push_back(i);
    g.rows.push_back(std::move(row));
  }
  std::vector<std::pair<std::string_view, const PgParams*>> commands;
  for (auto& [key, g] : groups) {
    // A few rows: the plain statement of each (see kMinRowsForArrayForm).
    if (g.members.size() < kMinRowsForArrayForm) {
      for (const PgParams& row : g.rows) commands.emplace_back(g.single_sql, &row);
      continue;
    }
    BindColumnsOfRows(g.rows, g.arrays);
    commands.emplace_back(g.sql, &g.arrays);
  }
  REDRIVE_ASSIGN_OR_RETURN(auto results, held->ExecPreparedBatch(commands));
  std::vector<bool> applied(changes.size(), false);
  size_t k = 0;
  for (auto& [key, g] : groups) {
    if (g.members.size() < kMinRowsForArrayForm) {
      for (size_t i : g.members) applied[i] = Written(changes[i], results[k++]);
      continue;
    }
    const PgResult& r = results[k++];
    std::unordered_set<std::string_view> written;
    for (int i = 0; i < r.rows(); ++i) written.insert(r.Text(i, 0));
    for (size_t i : g.members) applied[i] = written.contains(changes[i].after.id);
  }
  for (size_t i = 0; i < changes.size(); ++i) {
    if (!applied[i]) continue;
    Wrote(changes[i].after);
    count_deltas_.AddChange(changes[i].before, changes[i].after);
  }
  return applied;
}

Result<std::vector<bool>> PgWriteTx::ApplyEach(const std::vector<Change>& changes) {
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
  for (size_t i = 0; i < changes.size(); ++i) {
    applied.push_back(Written(changes[i], results[i]));
    if (!applied.back()) continue;
    Wrote(changes[i].after);
    count_deltas_.AddChange(changes[i].before, changes[i].after);
  }
  return applied;
}

}  // namespace redrive::store::postgres
