#include "store/sqlite/operation_sql.h"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>

#include "core/job_cursor.h"
#include "core/operation_codec.h"
#include "core/retry_budget.h"
#include "core/tags_json.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/row_mapping.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::operation_sql {

// The selection is kept in columns of its own (sel_*), one per field of
// DeadLetterSelection, so the runner selects with the store's one selection
// SQL (job_sql.h). job ids are newline-separated (the API refuses control
// characters in them); a rate is its shortest exact decimal text.
const char kSchema[] = R"sql(
CREATE TABLE operations (
  id               TEXT PRIMARY KEY,
  action           TEXT NOT NULL CHECK (action IN ('retry','purge','cancel','release')),
  state            TEXT NOT NULL
                   CHECK (state IN ('queued','running','completed','cancelled','failed')),
  selector         TEXT NOT NULL,
  statuses         TEXT NOT NULL,
  sel_job_ids      TEXT,
  sel_queue_name   TEXT,
  sel_dead_reason  TEXT,
  sel_tag          TEXT,
  sel_error_prefix TEXT,
  sel_dead_before  INTEGER,
  rate_per_second  TEXT,
  budget           TEXT,
  target_queue     TEXT,
  reason           TEXT,
  created_by       TEXT NOT NULL,
  matched          INTEGER NOT NULL CHECK (matched >= 0),
  done             INTEGER NOT NULL CHECK (done >= 0),
  failed           INTEGER NOT NULL CHECK (failed >= 0),
  cursor           TEXT,
  error            TEXT,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL,
  started_at       INTEGER,
  finished_at      INTEGER,
  next_batch_at    INTEGER,
  sel_fingerprint  TEXT
) STRICT;
CREATE INDEX operations_newest ON operations (created_at DESC, id DESC);
CREATE INDEX operations_unfinished ON operations (created_at) WHERE state IN ('queued','running');
)sql";

// Version 21: the `move` action, and finished operations by when they
// finished, for their retention (DeleteFinishedOperationsBefore). SQLite
// cannot alter a CHECK constraint, so its text in the schema is rewritten
// (as version 14 did for webhook formats): every stored row satisfies the
// wider check.
const char kMoveSchema[] = R"sql(
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'CHECK (action IN (''retry'',''purge'',''cancel'',''release''))',
                     'CHECK (action IN (''retry'',''purge'',''cancel'',''release'',''move''))')
 WHERE type = 'table' AND name = 'operations';
PRAGMA writable_schema = RESET;
CREATE INDEX operations_finished ON operations (finished_at)
  WHERE state IN ('completed','cancelled','failed');
)sql";

namespace {

#define REDRIVE_OPERATION_COLUMNS                                                         \
  "id, action, state, selector, statuses, sel_job_ids, sel_queue_name, sel_dead_reason, " \
  "sel_tag, sel_error_prefix, sel_dead_before, rate_per_second, budget, target_queue, "   \
  "reason, created_by, matched, done, failed, cursor, error, created_at, updated_at, "    \
  "started_at, finished_at, next_batch_at, sel_fingerprint"

constexpr char kGet[] = "SELECT " REDRIVE_OPERATION_COLUMNS " FROM operations WHERE id = ?1";
constexpr char kList[] = "SELECT " REDRIVE_OPERATION_COLUMNS
                         " FROM operations ORDER BY created_at DESC, id DESC LIMIT ?1 OFFSET ?2";
constexpr char kCountUnfinished[] =
    "SELECT count(*) FROM operations WHERE state IN ('queued','running')";
constexpr char kNextDue[] =
    "SELECT min(coalesce(next_batch_at, created_at)) FROM operations"
    " WHERE state IN ('queued','running')";
constexpr char kSelectDue[] = "SELECT " REDRIVE_OPERATION_COLUMNS
                              " FROM operations WHERE state IN ('queued','running')"
                              " AND coalesce(next_batch_at, created_at) <= ?1"
                              " ORDER BY created_at, id LIMIT ?2";
constexpr char kInsert[] = "INSERT INTO operations (" REDRIVE_OPERATION_COLUMNS
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
                           " ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27)";
constexpr char kUpdate[] =
    "UPDATE operations SET state = ?2, matched = ?3, done = ?4, failed = ?5, cursor = ?6,"
    " error = ?7, updated_at = ?8, started_at = ?9, finished_at = ?10, next_batch_at = ?11"
    " WHERE id = ?1";
constexpr char kDeleteFinished[] =
    "DELETE FROM operations WHERE id IN (SELECT id FROM operations"
    " WHERE state IN ('completed','cancelled','failed') AND finished_at < ?1"
    " ORDER BY finished_at, id LIMIT ?2)";

OperationRecord ReadOperation(const Statement& s) {
  OperationRecord rec;
  Operation& op = rec.operation;
  op.id = s.String(0);
  op.action = ParseOperationAction(s.Text(1)).value_or(OperationAction::kRetry);
  op.state = ParseOperationState(s.Text(2)).value_or(OperationState::kFailed);
  op.selector_json = s.String(3);
  op.statuses = ParseStatusList(s.Text(4));
  if (std::optional<std::string> ids = s.OptString(5)) rec.selection.job_ids = SplitIds(*ids);
  rec.selection.queue_name = s.OptString(6);
  if (std::optional<std::string> r = s.OptString(7))
    rec.selection.dead_reason = ParseDeadReason(*r);
  rec.selection.tag = s.OptString(8);
  rec.selection.error_prefix = s.OptString(9);
  rec.selection.dead_before = s.OptTime(10);
  if (std::optional<std::string> r = s.OptString(11)) op.rate_per_second = ParseRateText(*r);
  if (std::optional<std::string> b = s.OptString(12)) op.budget = ParseRetryBudget(*b);
  op.target_queue = s.OptString(13);
  op.reason = s.OptString(14);
  op.created_by = s.String(15);
  op.matched = s.Int64(16);
  op.done = s.Int64(17);
  op.failed = s.Int64(18);
  op.cursor = s.OptString(19);
  op.error = s.OptString(20);
  op.created_at = s.Time(21);
  op.updated_at = s.Time(22);
  op.started_at = s.OptTime(23);
  op.finished_at = s.OptTime(24);
  op.next_batch_at = s.OptTime(25);
  rec.selection.fingerprint = s.OptString(26);
  return rec;
}

Status RunExpectingOneRow(Statement& stmt, const std::string& what) {
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  if (stmt.Changes() == 0) return Status::NotFound(what + " not found");
  return Status::Ok();
}

}  // namespace

Result<OperationRecord> GetOperation(Connection& conn, const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGet));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound("operation " + id + " not found");
  return ReadOperation(stmt);
}

Result<std::vector<OperationRecord>> ListOperations(Connection& conn, int limit, int offset) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kList));
  stmt.Bind(1, limit);
  stmt.Bind(2, offset);
  return CollectRows<OperationRecord>(stmt, ReadOperation);
}

Result<long long> CountSelectedJobs(Connection& conn, const JobSelection& sel) {
  std::string ids_json;
  if (!sel.match.job_ids.empty()) ids_json = EncodeStringArrayJson(sel.match.job_ids);
  sql::BuiltQuery q = sql::CountSelectedJobs(sel, ids_json);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(q.sql));
  BindParams(stmt, q);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? static_cast<long long>(stmt.Int64(0)) : 0LL;
}

Result<std::optional<Instant>> NextOperationDue(Connection& conn) {
  return QueryOptTime(conn, kNextDue, [](Statement&) {});
}

Status InsertOperation(Connection& conn, const OperationRecord& rec, size_t max_unfinished) {
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement count, conn.Prepare(kCountUnfinished));
    REDRIVE_ASSIGN_OR_RETURN(bool row, count.Step());
    if (row && static_cast<size_t>(count.Int64(0)) >= max_unfinished) {
      return Status::Conflict("at most " + std::to_string(max_unfinished) +
                              " operations may be unfinished at once; wait for one to finish "
                              "or cancel one (POST /api/v1/operations/{id}/cancel)");
    }
  }
  const Operation& op = rec.operation;
  const DeadLetterSelection& sel = rec.selection;
  const std::string statuses = StatusListText(op.statuses);
  std::optional<std::string> ids;
  if (!sel.job_ids.empty()) ids = JoinIds(sel.job_ids);
  std::optional<std::string> reason;
  if (sel.dead_reason) reason = DeadReasonName(*sel.dead_reason);
  std::optional<std::string> rate;
  if (op.rate_per_second) rate = RateText(*op.rate_per_second);
  std::optional<std::string> budget;
  if (op.budget) budget = RetryBudgetText(*op.budget);
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kInsert));
  s.Bind(1, op.id);
  s.Bind(2, OperationActionName(op.action));
  s.Bind(3, OperationStateName(op.state));
  s.Bind(4, op.selector_json);
  s.Bind(5, statuses);
  s.Bind(6, ids);
  s.Bind(7, sel.queue_name);
  s.Bind(8, reason);
  s.Bind(9, sel.tag);
  s.Bind(10, sel.error_prefix);
  s.Bind(11, sel.dead_before);
  s.Bind(12, rate);
  s.Bind(13, budget);
  s.Bind(14, op.target_queue);
  s.Bind(15, op.reason);
  s.Bind(16, op.created_by);
  s.Bind(17, static_cast<int64_t>(op.matched));
  s.Bind(18, static_cast<int64_t>(op.done));
  s.Bind(19, static_cast<int64_t>(op.failed));
  s.Bind(20, op.cursor);
  s.Bind(21, op.error);
  s.Bind(22, op.created_at);
  s.Bind(23, op.updated_at);
  s.Bind(24, op.started_at);
  s.Bind(25, op.finished_at);
  s.Bind(26, op.next_batch_at);
  s.Bind(27, sel.fingerprint);
  return s.Run();
}

Status UpdateOperation(Connection& conn, const Operation& op) {
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kUpdate));
  s.Bind(1, op.id);
  s.Bind(2, OperationStateName(op.state));
  s.Bind(3, static_cast<int64_t>(op.matched));
  s.Bind(4, static_cast<int64_t>(op.done));
  s.Bind(5, static_cast<int64_t>(op.failed));
  s.Bind(6, op.cursor);
  s.Bind(7, op.error);
  s.Bind(8, op.updated_at);
  s.Bind(9, op.started_at);
  s.Bind(10, op.finished_at);
  s.Bind(11, op.next_batch_at);
  return RunExpectingOneRow(s, "operation " + op.id);
}

Result<std::vector<OperationRecord>> SelectDueOperations(Connection& conn, Instant now, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSelectDue));
  stmt.Bind(1, now);
  stmt.Bind(2, limit);
  return CollectRows<OperationRecord>(stmt, ReadOperation);
}

Result<long long> DeleteFinishedOperationsBefore(Connection& conn, Instant before, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kDeleteFinished));
  s.Bind(1, before);
  s.Bind(2, limit);
  REDRIVE_RETURN_IF_ERROR(s.Run());
  return static_cast<long long>(s.Changes());
}

Result<SelectedJobs> SelectJobsAfter(Connection& conn, const JobSelection& sel) {
  std::string ids_json;
  if (!sel.match.job_ids.empty()) ids_json = EncodeStringArrayJson(sel.match.job_ids);
  // Each status apart (each in the walk's order), then merged by cursor.
  const bool by_seq = sql::WalksBySeq(sel);
  std::vector<std::pair<JobCursor, Job>> rows;
  for (JobStatus status : sel.statuses) {
    sql::BuiltQuery q = sql::SelectJobsAfter(sel, status, ids_json);
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(q.sql));
    BindParams(stmt, q);
    for (;;) {
      REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
      if (!row) break;
      REDRIVE_ASSIGN_OR_RETURN(Job job, ReadJob(stmt));
      JobCursor at = CursorOf(job);
      if (by_seq) at.seq = stmt.Int64(kJobColumnCount);  // else 0: ties by id
      rows.emplace_back(std::move(at), std::move(job));
    }
  }
  // By created_at, then seq (all 0 when walking by id), then id: the order
  // of the queries above.
  auto before = [](const auto& a, const auto& b) {
    const JobCursor &x = a.first, &y = b.first;
    return std::tie(x.created_at, x.seq, x.id) < std::tie(y.created_at, y.seq, y.id);
  };
  std::sort(rows.begin(), rows.end(), before);
  rows.resize(std::min(rows.size(), static_cast<size_t>(std::max(sel.match.limit, 0))));
  SelectedJobs out;
  if (!rows.empty()) out.next = rows.back().first;
  out.jobs.reserve(rows.size());
  for (auto& [at, job] : rows) out.jobs.push_back(std::move(job));
  return out;
}

}  // namespace redrive::store::sqlite::operation_sql
