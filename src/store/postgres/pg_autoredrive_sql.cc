#include "store/postgres/pg_autoredrive_sql.h"

#include "core/operation_codec.h"

namespace redrive::store::postgres::autoredrive_sql {

// As SQLite's (sqlite/autoredrive_sql.cc).
const char kSchema[] = R"sql(
CREATE TABLE redrive.autoredrive_policies (
  queue_name           text COLLATE "C" PRIMARY KEY,
  enabled              boolean NOT NULL,
  fingerprint          text NOT NULL CHECK (length(fingerprint) = 16),
  dead_reason          text,
  cooldown_s           bigint NOT NULL CHECK (cooldown_s > 0),
  max_cooldown_s       bigint NOT NULL CHECK (max_cooldown_s >= cooldown_s),
  canary_size          integer NOT NULL CHECK (canary_size BETWEEN 1 AND 100),
  rate_per_second      text NOT NULL,
  max_revivals_per_job integer NOT NULL CHECK (max_revivals_per_job BETWEEN 1 AND 100),
  created_at           bigint NOT NULL,
  updated_at           bigint NOT NULL,
  updated_by           text NOT NULL,
  st_phase             text NOT NULL
                       CHECK (st_phase IN ('idle','cooling','canary','wave','backed_off')),
  st_cooldown_s        bigint NOT NULL CHECK (st_cooldown_s >= 0),
  st_next_check_at     bigint,
  st_batch_job_ids     text NOT NULL,
  st_batch_target      integer NOT NULL CHECK (st_batch_target >= 0),
  st_wave              integer NOT NULL CHECK (st_wave >= 0),
  st_batch_started_at  bigint,
  st_total_revived     bigint NOT NULL CHECK (st_total_revived >= 0),
  st_backoffs          bigint NOT NULL CHECK (st_backoffs >= 0),
  st_last_decision     text,
  st_last_reason       text NOT NULL,
  st_last_decision_at  bigint
);
CREATE TABLE redrive.job_auto_revivals (
  job_id   text COLLATE "C" PRIMARY KEY REFERENCES redrive.jobs (id) ON DELETE CASCADE,
  revivals integer NOT NULL CHECK (revivals > 0)
);
)sql";

namespace {

#define REDRIVE_PG_AUTOREDRIVE_COLUMNS                                                       \
  "queue_name, enabled, fingerprint, dead_reason, cooldown_s, max_cooldown_s, canary_size, " \
  "rate_per_second, max_revivals_per_job, created_at, updated_at, updated_by, st_phase, "    \
  "st_cooldown_s, st_next_check_at, st_batch_job_ids, st_batch_target, st_wave, "            \
  "st_batch_started_at, st_total_revived, st_backoffs, st_last_decision, st_last_reason, "   \
  "st_last_decision_at"

constexpr char kGet[] = "SELECT " REDRIVE_PG_AUTOREDRIVE_COLUMNS
                        " FROM redrive.autoredrive_policies WHERE queue_name = $1";
constexpr char kGetForUpdate[] = "SELECT " REDRIVE_PG_AUTOREDRIVE_COLUMNS
                                 " FROM redrive.autoredrive_policies WHERE queue_name = $1"
                                 " FOR UPDATE";
constexpr char kList[] = "SELECT " REDRIVE_PG_AUTOREDRIVE_COLUMNS
                         " FROM redrive.autoredrive_policies ORDER BY queue_name";
constexpr char kInsert[] =
    "INSERT INTO redrive.autoredrive_policies (" REDRIVE_PG_AUTOREDRIVE_COLUMNS
    ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
    " $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24)";
constexpr char kUpdatePolicy[] =
    "UPDATE redrive.autoredrive_policies SET enabled = $2, fingerprint = $3, dead_reason = $4,"
    " cooldown_s = $5, max_cooldown_s = $6, canary_size = $7, rate_per_second = $8,"
    " max_revivals_per_job = $9, updated_at = $10, updated_by = $11 WHERE queue_name = $1";
constexpr char kUpdateState[] =
    "UPDATE redrive.autoredrive_policies SET st_phase = $2, st_cooldown_s = $3,"
    " st_next_check_at = $4, st_batch_job_ids = $5, st_batch_target = $6, st_wave = $7,"
    " st_batch_started_at = $8, st_total_revived = $9, st_backoffs = $10,"
    " st_last_decision = $11, st_last_reason = $12, st_last_decision_at = $13"
    " WHERE queue_name = $1";
constexpr char kDelete[] = "DELETE FROM redrive.autoredrive_policies WHERE queue_name = $1";
constexpr char kCountRevivals[] =
    "INSERT INTO redrive.job_auto_revivals (job_id, revivals)"
    " SELECT id, 1 FROM redrive.jobs WHERE id = ANY($1::text[])"
    " ON CONFLICT (job_id) DO UPDATE SET revivals = redrive.job_auto_revivals.revivals + 1";

AutoredriveRecord ReadRecord(const PgResult& r, int row) {
  AutoredriveRecord rec;
  AutoredrivePolicy& p = rec.policy;
  p.queue_name = r.String(row, 0);
  p.enabled = r.Bool(row, 1);
  p.fingerprint = r.String(row, 2);
  if (auto reason = r.OptString(row, 3)) p.reason = ParseDeadReason(*reason);
  p.cooldown = std::chrono::seconds(r.Int64(row, 4));
  p.max_cooldown = std::chrono::seconds(r.Int64(row, 5));
  p.canary_size = static_cast<int>(r.Int64(row, 6));
  p.rate_per_second = ParseRateText(r.String(row, 7));
  p.max_revivals_per_job = static_cast<int>(r.Int64(row, 8));
  p.created_at = r.Time(row, 9);
  p.updated_at = r.Time(row, 10);
  p.updated_by = r.String(row, 11);
  AutoredriveState& st = rec.state;
  st.phase = ParseAutoredrivePhase(r.Text(row, 12)).value_or(AutoredrivePhase::kIdle);
  st.current_cooldown = std::chrono::seconds(r.Int64(row, 13));
  st.next_check_at = r.OptTime(row, 14);
  st.batch_job_ids = SplitIds(r.Text(row, 15));
  st.batch_target = static_cast<int>(r.Int64(row, 16));
  st.wave = static_cast<int>(r.Int64(row, 17));
  st.batch_started_at = r.OptTime(row, 18);
  st.total_revived = r.Int64(row, 19);
  st.backoffs = r.Int64(row, 20);
  if (auto d = r.OptString(row, 21)) st.last_decision = ParseAutoredriveDecision(*d);
  st.last_reason = r.String(row, 22);
  st.last_decision_at = r.OptTime(row, 23);
  return rec;
}

// The policy's fields after queue_name, as kUpdatePolicy orders them.
void AddPolicy(PgParams& p, const AutoredrivePolicy& policy, bool with_created_at) {
  p.Add(policy.enabled);
  p.AddRef(policy.fingerprint);
  if (policy.reason) {
    p.Add(DeadReasonName(*policy.reason));
  } else {
    p.AddNull();
  }
  p.Add(static_cast<int64_t>(policy.cooldown.count()));
  p.Add(static_cast<int64_t>(policy.max_cooldown.count()));
  p.Add(policy.canary_size);
  p.Add(RateText(policy.rate_per_second));
  p.Add(policy.max_revivals_per_job);
  if (with_created_at) p.Add(policy.created_at);
  p.Add(policy.updated_at);
  p.AddRef(policy.updated_by);
}

// The state's fields, as kUpdateState orders them.
void AddState(PgParams& p, const AutoredriveState& st) {
  p.Add(AutoredrivePhaseName(st.phase));
  p.Add(static_cast<int64_t>(st.current_cooldown.count()));
  p.Add(st.next_check_at);
  p.Add(JoinIds(st.batch_job_ids));
  p.Add(st.batch_target);
  p.Add(st.wave);
  p.Add(st.batch_started_at);
  p.Add(static_cast<int64_t>(st.total_revived));
  p.Add(static_cast<int64_t>(st.backoffs));
  if (st.last_decision) {
    p.Add(AutoredriveDecisionName(*st.last_decision));
  } else {
    p.AddNull();
  }
  p.AddRef(st.last_reason);
  p.Add(st.last_decision_at);
}

Status ExpectOneRow(const PgResult& r, const std::string& queue_name) {
  if (r.affected() == 0) {
    return Status::NotFound("queue " + queue_name + " has no auto-redrive policy");
  }
  return Status::Ok();
}

}  // namespace

Result<std::optional<AutoredriveRecord>> GetAutoredrive(PgConnection& conn,
                                                        const std::string& queue_name, bool lock) {
  PgParams p;
  p.AddRef(queue_name);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(lock ? kGetForUpdate : kGet, p));
  if (r.rows() == 0) return std::optional<AutoredriveRecord>();
  return std::optional<AutoredriveRecord>(ReadRecord(r, 0));
}

Result<std::vector<AutoredriveRecord>> ListAutoredrive(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kList, {}));
  std::vector<AutoredriveRecord> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadRecord(r, i));
  return out;
}

Status InsertAutoredrive(PgConnection& conn, const AutoredriveRecord& rec) {
  PgParams p;
  p.AddRef(rec.policy.queue_name);
  AddPolicy(p, rec.policy, /*with_created_at=*/true);
  AddState(p, rec.state);
  return conn.ExecPrepared(kInsert, p).status();
}

Status UpdateAutoredrivePolicy(PgConnection& conn, const AutoredrivePolicy& policy) {
  PgParams p;
  p.AddRef(policy.queue_name);
  AddPolicy(p, policy, /*with_created_at=*/false);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kUpdatePolicy, p));
  return ExpectOneRow(r, policy.queue_name);
}

Status UpdateAutoredriveState(PgConnection& conn, const std::string& queue_name,
                              const AutoredriveState& state) {
  PgParams p;
  p.AddRef(queue_name);
  AddState(p, state);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kUpdateState, p));
  return ExpectOneRow(r, queue_name);
}

Status DeleteAutoredrive(PgConnection& conn, const std::string& queue_name) {
  PgParams p;
  p.AddRef(queue_name);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDelete, p));
  return ExpectOneRow(r, queue_name);
}

Result<long long> CountAutoRevivals(PgConnection& conn, const std::vector<std::string>& ids) {
  if (ids.empty()) return 0LL;
  PgParams p;
  p.AddTextArray(ids);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kCountRevivals, p));
  return static_cast<long long>(r.affected());
}

}  // namespace redrive::store::postgres::autoredrive_sql
