#include "store/sqlite/autoredrive_sql.h"

#include "core/operation_codec.h"
#include "core/tags_json.h"
#include "store/sqlite/job_columns.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::autoredrive_sql {

// The policy's columns, then the state's (st_*): the operator's update
// writes the first, the duty's the second. Durations in whole seconds; the
// rate as its exact decimal text; batch job ids newline-separated.
const char kSchema[] = R"sql(
CREATE TABLE autoredrive_policies (
  queue_name           TEXT PRIMARY KEY,
  enabled              INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  fingerprint          TEXT NOT NULL CHECK (length(fingerprint) = 16),
  dead_reason          TEXT,
  cooldown_s           INTEGER NOT NULL CHECK (cooldown_s > 0),
  max_cooldown_s       INTEGER NOT NULL CHECK (max_cooldown_s >= cooldown_s),
  canary_size          INTEGER NOT NULL CHECK (canary_size BETWEEN 1 AND 100),
  rate_per_second      TEXT NOT NULL,
  max_revivals_per_job INTEGER NOT NULL CHECK (max_revivals_per_job BETWEEN 1 AND 100),
  created_at           INTEGER NOT NULL,
  updated_at           INTEGER NOT NULL,
  updated_by           TEXT NOT NULL,
  st_phase             TEXT NOT NULL
                       CHECK (st_phase IN ('idle','cooling','canary','wave','backed_off')),
  st_cooldown_s        INTEGER NOT NULL CHECK (st_cooldown_s >= 0),
  st_next_check_at     INTEGER,
  st_batch_job_ids     TEXT NOT NULL,
  st_batch_target      INTEGER NOT NULL CHECK (st_batch_target >= 0),
  st_wave              INTEGER NOT NULL CHECK (st_wave >= 0),
  st_batch_started_at  INTEGER,
  st_total_revived     INTEGER NOT NULL CHECK (st_total_revived >= 0),
  st_backoffs          INTEGER NOT NULL CHECK (st_backoffs >= 0),
  st_last_decision     TEXT,
  st_last_reason       TEXT NOT NULL,
  st_last_decision_at  INTEGER
) STRICT;
CREATE TABLE job_auto_revivals (
  job_id   TEXT PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
  revivals INTEGER NOT NULL CHECK (revivals > 0)
) STRICT, WITHOUT ROWID;
)sql";

namespace {

#define REDRIVE_AUTOREDRIVE_COLUMNS                                                          \
  "queue_name, enabled, fingerprint, dead_reason, cooldown_s, max_cooldown_s, canary_size, " \
  "rate_per_second, max_revivals_per_job, created_at, updated_at, updated_by, st_phase, "    \
  "st_cooldown_s, st_next_check_at, st_batch_job_ids, st_batch_target, st_wave, "            \
  "st_batch_started_at, st_total_revived, st_backoffs, st_last_decision, st_last_reason, "   \
  "st_last_decision_at"

constexpr char kGet[] =
    "SELECT " REDRIVE_AUTOREDRIVE_COLUMNS " FROM autoredrive_policies WHERE queue_name = ?1";
constexpr char kList[] =
    "SELECT " REDRIVE_AUTOREDRIVE_COLUMNS " FROM autoredrive_policies ORDER BY queue_name";
constexpr char kInsert[] = "INSERT INTO autoredrive_policies (" REDRIVE_AUTOREDRIVE_COLUMNS
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
                           " ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24)";
constexpr char kUpdatePolicy[] =
    "UPDATE autoredrive_policies SET enabled = ?2, fingerprint = ?3, dead_reason = ?4,"
    " cooldown_s = ?5, max_cooldown_s = ?6, canary_size = ?7, rate_per_second = ?8,"
    " max_revivals_per_job = ?9, updated_at = ?10, updated_by = ?11 WHERE queue_name = ?1";
constexpr char kUpdateState[] =
    "UPDATE autoredrive_policies SET st_phase = ?2, st_cooldown_s = ?3, st_next_check_at = ?4,"
    " st_batch_job_ids = ?5, st_batch_target = ?6, st_wave = ?7, st_batch_started_at = ?8,"
    " st_total_revived = ?9, st_backoffs = ?10, st_last_decision = ?11, st_last_reason = ?12,"
    " st_last_decision_at = ?13 WHERE queue_name = ?1";
constexpr char kDelete[] = "DELETE FROM autoredrive_policies WHERE queue_name = ?1";
constexpr char kCountRevivals[] =
    "INSERT INTO job_auto_revivals (job_id, revivals)"
    " SELECT id, 1 FROM jobs"
    " WHERE id IN (SELECT " REDRIVE_JOB_ID_OF("value") " FROM json_each(?1))"
    " ON CONFLICT (job_id) DO UPDATE SET revivals = revivals + 1";

AutoredriveRecord ReadRecord(const Statement& s) {
  AutoredriveRecord rec;
  AutoredrivePolicy& p = rec.policy;
  p.queue_name = s.String(0);
  p.enabled = s.Int(1) != 0;
  p.fingerprint = s.String(2);
  if (std::optional<std::string> r = s.OptString(3)) p.reason = ParseDeadReason(*r);
  p.cooldown = std::chrono::seconds(s.Int64(4));
  p.max_cooldown = std::chrono::seconds(s.Int64(5));
  p.canary_size = s.Int(6);
  p.rate_per_second = ParseRateText(s.String(7));
  p.max_revivals_per_job = s.Int(8);
  p.created_at = s.Time(9);
  p.updated_at = s.Time(10);
  p.updated_by = s.String(11);
  AutoredriveState& st = rec.state;
  st.phase = ParseAutoredrivePhase(s.Text(12)).value_or(AutoredrivePhase::kIdle);
  st.current_cooldown = std::chrono::seconds(s.Int64(13));
  st.next_check_at = s.OptTime(14);
  st.batch_job_ids = SplitIds(s.Text(15));
  st.batch_target = s.Int(16);
  st.wave = s.Int(17);
  st.batch_started_at = s.OptTime(18);
  st.total_revived = s.Int64(19);
  st.backoffs = s.Int64(20);
  if (std::optional<std::string> d = s.OptString(21))
    st.last_decision = ParseAutoredriveDecision(*d);
  st.last_reason = s.String(22);
  st.last_decision_at = s.OptTime(23);
  return rec;
}

// Binds the policy's fields from ?2 (queue_name is ?1) as kUpdatePolicy
// orders them, up to updated_by.
void BindPolicy(Statement& s, const AutoredrivePolicy& p, bool with_created_at) {
  int i = 2;
  s.Bind(i++, p.enabled ? 1 : 0);
  s.Bind(i++, p.fingerprint);
  if (p.reason) {
    s.Bind(i++, DeadReasonName(*p.reason));
  } else {
    s.BindNull(i++);
  }
  s.Bind(i++, static_cast<int64_t>(p.cooldown.count()));
  s.Bind(i++, static_cast<int64_t>(p.max_cooldown.count()));
  s.Bind(i++, p.canary_size);
  s.BindCopy(i++, RateText(p.rate_per_second));
  s.Bind(i++, p.max_revivals_per_job);
  if (with_created_at) s.Bind(i++, p.created_at);
  s.Bind(i++, p.updated_at);
  s.Bind(i++, p.updated_by);
}

// Binds the state's fields from `first` on, as kUpdateState orders them.
void BindState(Statement& s, int first, const AutoredriveState& st) {
  int i = first;
  s.Bind(i++, AutoredrivePhaseName(st.phase));
  s.Bind(i++, static_cast<int64_t>(st.current_cooldown.count()));
  s.Bind(i++, st.next_check_at);
  s.BindCopy(i++, JoinIds(st.batch_job_ids));
  s.Bind(i++, st.batch_target);
  s.Bind(i++, st.wave);
  s.Bind(i++, st.batch_started_at);
  s.Bind(i++, static_cast<int64_t>(st.total_revived));
  s.Bind(i++, static_cast<int64_t>(st.backoffs));
  if (st.last_decision) {
    s.Bind(i++, AutoredriveDecisionName(*st.last_decision));
  } else {
    s.BindNull(i++);
  }
  s.Bind(i++, st.last_reason);
  s.Bind(i++, st.last_decision_at);
}

Status RunExpectingOneRow(Statement& stmt, const std::string& queue_name) {
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  if (stmt.Changes() == 0) {
    return Status::NotFound("queue " + queue_name + " has no auto-redrive policy");
  }
  return Status::Ok();
}

}  // namespace

Result<std::optional<AutoredriveRecord>> GetAutoredrive(Connection& conn,
                                                        const std::string& queue_name) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGet));
  stmt.Bind(1, queue_name);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<AutoredriveRecord>();
  return std::optional<AutoredriveRecord>(ReadRecord(stmt));
}

Result<std::vector<AutoredriveRecord>> ListAutoredrive(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kList));
  return CollectRows<AutoredriveRecord>(stmt, ReadRecord);
}

Status InsertAutoredrive(Connection& conn, const AutoredriveRecord& rec) {
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kInsert));
  s.Bind(1, rec.policy.queue_name);
  BindPolicy(s, rec.policy, /*with_created_at=*/true);
  BindState(s, 13, rec.state);
  return s.Run();
}

Status UpdateAutoredrivePolicy(Connection& conn, const AutoredrivePolicy& policy) {
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kUpdatePolicy));
  s.Bind(1, policy.queue_name);
  BindPolicy(s, policy, /*with_created_at=*/false);
  return RunExpectingOneRow(s, policy.queue_name);
}

Status UpdateAutoredriveState(Connection& conn, const std::string& queue_name,
                              const AutoredriveState& state) {
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kUpdateState));
  s.Bind(1, queue_name);
  BindState(s, 2, state);
  return RunExpectingOneRow(s, queue_name);
}

Status DeleteAutoredrive(Connection& conn, const std::string& queue_name) {
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kDelete));
  s.Bind(1, queue_name);
  return RunExpectingOneRow(s, queue_name);
}

Result<long long> CountAutoRevivals(Connection& conn, const std::vector<std::string>& ids) {
  if (ids.empty()) return 0LL;
  const std::string ids_json = EncodeStringArrayJson(ids);
  REDRIVE_ASSIGN_OR_RETURN(Statement s, conn.Prepare(kCountRevivals));
  s.Bind(1, ids_json);
  REDRIVE_RETURN_IF_ERROR(s.Run());
  return static_cast<long long>(s.Changes());
}

}  // namespace redrive::store::sqlite::autoredrive_sql
