#include "store/postgres/pg_operation_sql.h"

#include "core/operation_codec.h"
#include "core/retry_budget.h"
#include "store/postgres/pg_job_sql.h"

namespace redrive::store::postgres::operation_sql {

// As SQLite's (sqlite/operation_sql.cc): the selection in sel_* columns,
// job ids newline-separated, the rate as its exact decimal text.
const char kSchema[] = R"sql(
CREATE TABLE redrive.operations (
  id               text COLLATE "C" PRIMARY KEY,
  action           text NOT NULL CHECK (action IN ('retry','purge','cancel','release')),
  state            text NOT NULL
                   CHECK (state IN ('queued','running','completed','cancelled','failed')),
  selector         text NOT NULL,
  statuses         text NOT NULL,
  sel_job_ids      text,
  sel_queue_name   text,
  sel_dead_reason  text,
  sel_tag          text,
  sel_error_prefix text,
  sel_dead_before  bigint,
  rate_per_second  text,
  budget           text,
  target_queue     text,
  reason           text,
  created_by       text NOT NULL,
  matched          bigint NOT NULL CHECK (matched >= 0),
  done             bigint NOT NULL CHECK (done >= 0),
  failed           bigint NOT NULL CHECK (failed >= 0),
  cursor           text COLLATE "C",
  error            text,
  created_at       bigint NOT NULL,
  updated_at       bigint NOT NULL,
  started_at       bigint,
  finished_at      bigint,
  next_batch_at    bigint,
  sel_fingerprint  text
);
CREATE INDEX operations_newest ON redrive.operations (created_at DESC, id DESC);
CREATE INDEX operations_unfinished ON redrive.operations (created_at)
  WHERE state IN ('queued','running');
)sql";

// Version 22: the `move` action, and finished operations by when they
// finished, for their retention (DeleteFinishedOperationsBefore).
const char kMoveSchema[] = R"sql(
ALTER TABLE redrive.operations
  DROP CONSTRAINT operations_action_check,
  ADD CONSTRAINT operations_action_check
    CHECK (action IN ('retry','purge','cancel','release','move'));
CREATE INDEX operations_finished ON redrive.operations (finished_at)
  WHERE state IN ('completed','cancelled','failed');
)sql";

namespace {

// "REDRIVE5": creations of operations take turns between count and insert.
constexpr long long kOperationCreationLockKey = 0x5245445249564535;

#define REDRIVE_PG_OPERATION_COLUMNS                                                      \
  "id, action, state, selector, statuses, sel_job_ids, sel_queue_name, sel_dead_reason, " \
  "sel_tag, sel_error_prefix, sel_dead_before, rate_per_second, budget, target_queue, "   \
  "reason, created_by, matched, done, failed, cursor, error, created_at, updated_at, "    \
  "started_at, finished_at, next_batch_at, sel_fingerprint"

constexpr char kGet[] =
    "SELECT " REDRIVE_PG_OPERATION_COLUMNS " FROM redrive.operations WHERE id = $1";
constexpr char kGetForUpdate[] =
    "SELECT " REDRIVE_PG_OPERATION_COLUMNS " FROM redrive.operations WHERE id = $1 FOR UPDATE";
constexpr char kList[] = "SELECT " REDRIVE_PG_OPERATION_COLUMNS
                         " FROM redrive.operations ORDER BY created_at DESC, id DESC"
                         " LIMIT $1 OFFSET $2";
constexpr char kCountUnfinished[] =
    "SELECT count(*) FROM redrive.operations WHERE state IN ('queued','running')";
constexpr char kNextDue[] =
    "SELECT min(coalesce(next_batch_at, created_at)) FROM redrive.operations"
    " WHERE state IN ('queued','running')";
constexpr char kSelectDue[] = "SELECT " REDRIVE_PG_OPERATION_COLUMNS
                              " FROM redrive.operations WHERE state IN ('queued','running')"
                              " AND coalesce(next_batch_at, created_at) <= $1"
                              " ORDER BY created_at, id LIMIT $2 FOR UPDATE SKIP LOCKED";
constexpr char kInsert[] = "INSERT INTO redrive.operations (" REDRIVE_PG_OPERATION_COLUMNS
                           ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
                           " $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27)";
constexpr char kUpdate[] =
    "UPDATE redrive.operations SET state = $2, matched = $3, done = $4, failed = $5,"
    " cursor = $6, error = $7, updated_at = $8, started_at = $9, finished_at = $10,"
    " next_batch_at = $11 WHERE id = $1";
constexpr char kDeleteFinished[] =
    "DELETE FROM redrive.operations WHERE id IN (SELECT id FROM redrive.operations"
    " WHERE state IN ('completed','cancelled','failed') AND finished_at < $1"
    " ORDER BY finished_at, id LIMIT $2 FOR UPDATE SKIP LOCKED)";

OperationRecord ReadOperation(const PgResult& r, int row) {
  OperationRecord rec;
  Operation& op = rec.operation;
  op.id = r.String(row, 0);
  op.action = ParseOperationAction(r.Text(row, 1)).value_or(OperationAction::kRetry);
  op.state = ParseOperationState(r.Text(row, 2)).value_or(OperationState::kFailed);
  op.selector_json = r.String(row, 3);
  op.statuses = ParseStatusList(r.Text(row, 4));
  if (auto ids = r.OptString(row, 5)) rec.selection.job_ids = SplitIds(*ids);
  rec.selection.queue_name = r.OptString(row, 6);
  if (auto reason = r.OptString(row, 7)) rec.selection.dead_reason = ParseDeadReason(*reason);
  rec.selection.tag = r.OptString(row, 8);
  rec.selection.error_prefix = r.OptString(row, 9);
  rec.selection.dead_before = r.OptTime(row, 10);
  if (auto rate = r.OptString(row, 11)) op.rate_per_second = ParseRateText(*rate);
  if (auto budget = r.OptString(row, 12)) op.budget = ParseRetryBudget(*budget);
  op.target_queue = r.OptString(row, 13);
  op.reason = r.OptString(row, 14);
  op.created_by = r.String(row, 15);
  op.matched = r.Int64(row, 16);
  op.done = r.Int64(row, 17);
  op.failed = r.Int64(row, 18);
  op.cursor = r.OptString(row, 19);
  op.error = r.OptString(row, 20);
  op.created_at = r.Time(row, 21);
  op.updated_at = r.Time(row, 22);
  op.started_at = r.OptTime(row, 23);
  op.finished_at = r.OptTime(row, 24);
  op.next_batch_at = r.OptTime(row, 25);
  rec.selection.fingerprint = r.OptString(row, 26);
  return rec;
}

std::vector<OperationRecord> Rows(const PgResult& r) {
  std::vector<OperationRecord> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadOperation(r, i));
  return out;
}

}  // namespace

Result<OperationRecord> GetOperation(PgConnection& conn, const std::string& id, bool lock) {
  PgParams p;
  p.AddRef(id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(lock ? kGetForUpdate : kGet, p));
  if (r.rows() == 0) return Status::NotFound("operation " + id + " not found");
  return ReadOperation(r, 0);
}

Result<std::vector<OperationRecord>> ListOperations(PgConnection& conn, int limit, int offset) {
  PgParams p;
  p.Add(limit);
  p.Add(offset);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kList, p));
  return Rows(r);
}

Result<long long> CountSelectedJobs(PgConnection& conn, const JobSelection& sel) {
  sql::BuiltQuery q = sql::CountSelectedJobs(sel);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecParams(q.sql, q.params));
  return static_cast<long long>(r.Int64(0, 0));
}

Result<std::optional<Instant>> NextOperationDue(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kNextDue, {}));
  if (r.rows() == 0) return std::optional<Instant>();
  return r.OptTime(0, 0);
}

Status InsertOperation(PgConnection& conn, const OperationRecord& rec, size_t max_unfinished) {
  REDRIVE_RETURN_IF_ERROR(
      conn.Exec("SELECT pg_advisory_xact_lock(" + std::to_string(kOperationCreationLockKey) + ")")
          .status());
  REDRIVE_ASSIGN_OR_RETURN(PgResult count, conn.ExecPrepared(kCountUnfinished, {}));
  if (static_cast<size_t>(count.Int64(0, 0)) >= max_unfinished) {
    return Status::Conflict("at most " + std::to_string(max_unfinished) +
                            " operations may be unfinished at once; wait for one to finish "
                            "or cancel one (POST /api/v1/operations/{id}/cancel)");
  }
  const Operation& op = rec.operation;
  const DeadLetterSelection& sel = rec.selection;
  PgParams p;
  p.AddRef(op.id);
  p.Add(OperationActionName(op.action));
  p.Add(OperationStateName(op.state));
  p.AddRef(op.selector_json);
  p.Add(StatusListText(op.statuses));
  if (sel.job_ids.empty()) {
    p.AddNull();
  } else {
    p.Add(JoinIds(sel.job_ids));
  }
  p.AddRef(sel.queue_name);
  if (sel.dead_reason) {
    p.Add(DeadReasonName(*sel.dead_reason));
  } else {
    p.AddNull();
  }
  p.AddRef(sel.tag);
  p.AddRef(sel.error_prefix);
  p.Add(sel.dead_before);
  if (op.rate_per_second) {
    p.Add(RateText(*op.rate_per_second));
  } else {
    p.AddNull();
  }
  if (op.budget) {
    p.Add(RetryBudgetText(*op.budget));
  } else {
    p.AddNull();
  }
  p.AddRef(op.target_queue);
  p.AddRef(op.reason);
  p.AddRef(op.created_by);
  p.Add(static_cast<int64_t>(op.matched));
  p.Add(static_cast<int64_t>(op.done));
  p.Add(static_cast<int64_t>(op.failed));
  p.AddRef(op.cursor);
  p.AddRef(op.error);
  p.Add(op.created_at);
  p.Add(op.updated_at);
  p.Add(op.started_at);
  p.Add(op.finished_at);
  p.Add(op.next_batch_at);
  p.AddRef(sel.fingerprint);
  return conn.ExecPrepared(kInsert, p).status();
}

Status UpdateOperation(PgConnection& conn, const Operation& op) {
  PgParams p;
  p.AddRef(op.id);
  p.Add(OperationStateName(op.state));
  p.Add(static_cast<int64_t>(op.matched));
  p.Add(static_cast<int64_t>(op.done));
  p.Add(static_cast<int64_t>(op.failed));
  p.AddRef(op.cursor);
  p.AddRef(op.error);
  p.Add(op.updated_at);
  p.Add(op.started_at);
  p.Add(op.finished_at);
  p.Add(op.next_batch_at);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kUpdate, p));
  if (r.affected() == 0) return Status::NotFound("operation " + op.id + " not found");
  return Status::Ok();
}

Result<std::vector<OperationRecord>> SelectDueOperations(PgConnection& conn, Instant now,
                                                         int limit) {
  PgParams p;
  p.Add(now);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kSelectDue, p));
  return Rows(r);
}

Result<long long> DeleteFinishedOperationsBefore(PgConnection& conn, Instant before, int limit) {
  PgParams p;
  p.Add(before);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteFinished, p));
  return static_cast<long long>(r.affected());
}

}  // namespace redrive::store::postgres::operation_sql
