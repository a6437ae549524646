#include "store/postgres/pg_schedule_sql.h"

#include "core/tags_json.h"

namespace redrive::store::postgres::schedule_sql {
namespace {

#define REDRIVE_PG_SCHEDULE_COLUMNS                                                        \
  "id, name, description, cron_expression, timezone, queue_name, payload_template, "       \
  "priority, max_retries, timeout_seconds, tags, metadata, is_active, missed_run_policy, " \
  "overlap_policy, backfill_limit, last_run_at, next_run_at, last_job_id, run_count, "     \
  "created_at, updated_at"
#define REDRIVE_PG_SCHEDULE_RUN_COLUMNS \
  "id, schedule_id, fire_time, kind, job_id, error, created_at"

constexpr char kGet[] =
    "SELECT " REDRIVE_PG_SCHEDULE_COLUMNS " FROM redrive.schedules WHERE id = $1";
constexpr char kGetForUpdate[] =
    "SELECT " REDRIVE_PG_SCHEDULE_COLUMNS " FROM redrive.schedules WHERE id = $1 FOR UPDATE";
// $1 and $2 filter when not NULL.
constexpr char kList[] = "SELECT " REDRIVE_PG_SCHEDULE_COLUMNS
                         " FROM redrive.schedules WHERE ($1::boolean IS NULL OR is_active = $1)"
                         " AND ($2::text IS NULL OR queue_name = $2)"
                         " ORDER BY created_at, id LIMIT $3 OFFSET $4";
constexpr char kCount[] = "SELECT count(*) FROM redrive.schedules";
constexpr char kListRuns[] =
    "SELECT " REDRIVE_PG_SCHEDULE_RUN_COLUMNS
    " FROM redrive.schedule_runs WHERE schedule_id = $1"
    " ORDER BY created_at DESC, fire_time DESC, id DESC LIMIT $2 OFFSET $3";
// Walks schedules_due.
constexpr char kNextDue[] =
    "SELECT next_run_at FROM redrive.schedules WHERE is_active AND next_run_at IS NOT NULL"
    " ORDER BY next_run_at LIMIT 1";
constexpr char kSelectDue[] = "SELECT " REDRIVE_PG_SCHEDULE_COLUMNS
                              " FROM redrive.schedules WHERE is_active AND next_run_at <= $1"
                              " ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED";
constexpr char kInsert[] = "INSERT INTO redrive.schedules (" REDRIVE_PG_SCHEDULE_COLUMNS
                           ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13,"
                           " $14, $15, $16, $17, $18, $19, $20, $21, $22)";
constexpr char kUpdate[] =
    "UPDATE redrive.schedules SET name = $2, description = $3, cron_expression = $4,"
    " timezone = $5, queue_name = $6, payload_template = $7, priority = $8, max_retries = $9,"
    " timeout_seconds = $10, tags = $11, metadata = $12, is_active = $13,"
    " missed_run_policy = $14, overlap_policy = $15, backfill_limit = $16, last_run_at = $17,"
    " next_run_at = $18, last_job_id = $19, run_count = $20, created_at = $21,"
    " updated_at = $22 WHERE id = $1";
constexpr char kDeleteRuns[] = "DELETE FROM redrive.schedule_runs WHERE schedule_id = $1";
constexpr char kDelete[] = "DELETE FROM redrive.schedules WHERE id = $1";
constexpr char kInsertRun[] = "INSERT INTO redrive.schedule_runs (" REDRIVE_PG_SCHEDULE_RUN_COLUMNS
                              ") VALUES ($1, $2, $3, $4, $5, $6, $7)";
// As SQLite's (schedule_sql.cc): every run ranked within its schedule.
constexpr char kDeleteOldRuns[] =
    "DELETE FROM redrive.schedule_runs WHERE id IN (SELECT id FROM (SELECT id, created_at,"
    " row_number() OVER (PARTITION BY schedule_id"
    " ORDER BY created_at DESC, fire_time DESC, id DESC) AS rank FROM redrive.schedule_runs) r"
    " WHERE rank > $1 OR created_at < $2 LIMIT $3)";

Schedule ReadSchedule(const PgResult& r, int row) {
  Schedule s;
  s.id = r.String(row, 0);
  s.name = r.String(row, 1);
  s.description = r.OptString(row, 2);
  s.cron_expression = r.String(row, 3);
  s.timezone = r.String(row, 4);
  s.queue_name = r.String(row, 5);
  s.payload_template = r.String(row, 6);
  s.priority = r.Int(row, 7);
  s.max_retries = r.Int(row, 8);
  s.timeout_seconds = r.Int(row, 9);
  s.tags = DecodeTagsJson(r.Text(row, 10)).value_or(Tags{});
  s.metadata = r.String(row, 11);
  s.is_active = r.Bool(row, 12);
  s.missed_run_policy = ParseMissedRunPolicy(r.Text(row, 13)).value_or(MissedRunPolicy::kSkip);
  s.overlap_policy = ParseOverlapPolicy(r.Text(row, 14)).value_or(OverlapPolicy::kAllow);
  s.backfill_limit = r.Int(row, 15);
  s.last_run_at = r.OptTime(row, 16);
  s.next_run_at = r.OptTime(row, 17);
  s.last_job_id = r.OptString(row, 18);
  s.run_count = r.Int64(row, 19);
  s.created_at = r.Time(row, 20);
  s.updated_at = r.Time(row, 21);
  return s;
}

void BindSchedule(PgParams& p, const Schedule& s) {
  p.AddRef(s.id);
  p.AddRef(s.name);
  p.AddRef(s.description);
  p.AddRef(s.cron_expression);
  p.AddRef(s.timezone);
  p.AddRef(s.queue_name);
  p.AddRef(s.payload_template);
  p.Add(s.priority);
  p.Add(s.max_retries);
  p.Add(s.timeout_seconds);
  p.Add(EncodeTagsJson(s.tags));
  p.AddRef(s.metadata);
  p.Add(s.is_active);
  p.Add(MissedRunPolicyName(s.missed_run_policy));
  p.Add(OverlapPolicyName(s.overlap_policy));
  p.Add(s.backfill_limit);
  p.Add(s.last_run_at);
  p.Add(s.next_run_at);
  p.AddRef(s.last_job_id);
  p.Add(static_cast<int64_t>(s.run_count));
  p.Add(s.created_at);
  p.Add(s.updated_at);
}

ScheduleRun ReadRun(const PgResult& r, int row) {
  ScheduleRun run;
  run.id = r.String(row, 0);
  run.schedule_id = r.String(row, 1);
  run.fire_time = r.Time(row, 2);
  run.kind = ParseScheduleRunKind(r.Text(row, 3)).value_or(ScheduleRunKind::kScheduled);
  run.job_id = r.OptString(row, 4);
  run.error = r.OptString(row, 5);
  run.created_at = r.Time(row, 6);
  return run;
}

template <typename T, typename ReadFn>
std::vector<T> Rows(const PgResult& r, ReadFn read) {
  std::vector<T> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) out.push_back(read(r, i));
  return out;
}

Status ExpectOneRow(const Result<PgResult>& r, const std::string& what) {
  if (!r.ok()) return r.status();
  if (r->affected() == 0) return Status::NotFound(what + " not found");
  return Status::Ok();
}

}  // namespace

Result<Schedule> GetSchedule(PgConnection& conn, const std::string& id, bool lock) {
  PgParams p;
  p.AddRef(id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(lock ? kGetForUpdate : kGet, p));
  if (r.rows() == 0) return Status::NotFound("schedule " + id + " not found");
  return ReadSchedule(r, 0);
}

Result<std::vector<Schedule>> ListSchedules(PgConnection& conn, const ScheduleFilter& f) {
  PgParams p;
  if (f.is_active) {
    p.Add(*f.is_active);
  } else {
    p.AddNull();
  }
  p.AddRef(f.queue_name);
  p.Add(f.limit);
  p.Add(f.offset);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kList, p));
  return Rows<Schedule>(r, ReadSchedule);
}

Result<long long> CountSchedules(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kCount, {}));
  return r.rows() == 0 ? 0 : r.Int64(0, 0);
}

Result<std::vector<ScheduleRun>> ListScheduleRuns(PgConnection& conn,
                                                  const std::string& schedule_id, int limit,
                                                  int offset) {
  PgParams p;
  p.AddRef(schedule_id);
  p.Add(limit);
  p.Add(offset);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kListRuns, p));
  return Rows<ScheduleRun>(r, ReadRun);
}

Result<std::optional<Instant>> NextScheduleDue(PgConnection& conn) {
  PgParams p;
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kNextDue, p));
  if (r.rows() == 0) return std::optional<Instant>();
  return r.OptTime(0, 0);
}

Status InsertSchedule(PgConnection& conn, const Schedule& s) {
  PgParams p;
  BindSchedule(p, s);
  return conn.ExecPrepared(kInsert, p).status();
}

Status UpdateSchedule(PgConnection& conn, const Schedule& s) {
  PgParams p;
  BindSchedule(p, s);
  return ExpectOneRow(conn.ExecPrepared(kUpdate, p), "schedule " + s.id);
}

Status DeleteSchedule(PgConnection& conn, const std::string& id) {
  PgParams p;
  p.AddRef(id);
  // Explicit, not left to the foreign key's cascade: the cost is visible here.
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kDeleteRuns, p).status());
  return ExpectOneRow(conn.ExecPrepared(kDelete, p), "schedule " + id);
}

Result<std::vector<Schedule>> SelectDueSchedules(PgConnection& conn, Instant now, int limit) {
  PgParams p;
  p.Add(now);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kSelectDue, p));
  return Rows<Schedule>(r, ReadSchedule);
}

Status InsertScheduleRun(PgConnection& conn, const ScheduleRun& run) {
  PgParams p;
  p.AddRef(run.id);
  p.AddRef(run.schedule_id);
  p.Add(run.fire_time);
  p.Add(ScheduleRunKindName(run.kind));
  p.AddRef(run.job_id);
  p.AddRef(run.error);
  p.Add(run.created_at);
  return conn.ExecPrepared(kInsertRun, p).status();
}

Result<long long> DeleteOldScheduleRuns(PgConnection& conn, int keep_per_schedule, Instant before,
                                        int limit) {
  PgParams p;
  p.Add(keep_per_schedule);
  p.Add(before);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteOldRuns, p));
  return r.affected();
}

}  // namespace redrive::store::postgres::schedule_sql
