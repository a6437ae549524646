#include "store/sqlite/schedule_sql.h"

#include "core/tags_json.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::schedule_sql {
namespace {

#define REDRIVE_SCHEDULE_COLUMNS                                                           \
  "id, name, description, cron_expression, timezone, queue_name, payload_template, "       \
  "priority, max_retries, timeout_seconds, tags, metadata, is_active, missed_run_policy, " \
  "overlap_policy, backfill_limit, last_run_at, next_run_at, last_job_id, run_count, "     \
  "created_at, updated_at"
#define REDRIVE_SCHEDULE_RUN_COLUMNS "id, schedule_id, fire_time, kind, job_id, error, created_at"

constexpr char kGet[] = "SELECT " REDRIVE_SCHEDULE_COLUMNS " FROM schedules WHERE id = ?1";
// ?1 and ?2 filter when not NULL.
constexpr char kList[] = "SELECT " REDRIVE_SCHEDULE_COLUMNS
                         " FROM schedules WHERE (?1 IS NULL OR is_active = ?1)"
                         " AND (?2 IS NULL OR queue_name = ?2)"
                         " ORDER BY created_at, id LIMIT ?3 OFFSET ?4";
constexpr char kCount[] = "SELECT count(*) FROM schedules";
constexpr char kListRuns[] =
    "SELECT " REDRIVE_SCHEDULE_RUN_COLUMNS
    " FROM schedule_runs WHERE schedule_id = ?1"
    " ORDER BY created_at DESC, fire_time DESC, id DESC LIMIT ?2 OFFSET ?3";
// Walks schedules_due.
constexpr char kNextDue[] =
    "SELECT next_run_at FROM schedules WHERE is_active = 1 AND next_run_at IS NOT NULL"
    " ORDER BY next_run_at LIMIT 1";
constexpr char kSelectDue[] = "SELECT " REDRIVE_SCHEDULE_COLUMNS
                              " FROM schedules WHERE is_active = 1 AND next_run_at <= ?1"
                              " ORDER BY next_run_at LIMIT ?2";
constexpr char kInsert[] = "INSERT INTO schedules (" REDRIVE_SCHEDULE_COLUMNS
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
                           " ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)";
constexpr char kUpdate[] =
    "UPDATE schedules SET name = ?2, description = ?3, cron_expression = ?4, timezone = ?5,"
    " queue_name = ?6, payload_template = ?7, priority = ?8, max_retries = ?9,"
    " timeout_seconds = ?10, tags = ?11, metadata = ?12, is_active = ?13,"
    " missed_run_policy = ?14, overlap_policy = ?15, backfill_limit = ?16, last_run_at = ?17,"
    " next_run_at = ?18, last_job_id = ?19, run_count = ?20, created_at = ?21,"
    " updated_at = ?22 WHERE id = ?1";
constexpr char kDeleteRuns[] = "DELETE FROM schedule_runs WHERE schedule_id = ?1";
constexpr char kDelete[] = "DELETE FROM schedules WHERE id = ?1";
constexpr char kInsertRun[] = "INSERT INTO schedule_runs (" REDRIVE_SCHEDULE_RUN_COLUMNS
                              ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)";
// Ranks every run within its schedule, newest first (ListScheduleRuns's
// order): one pass over the table, bounded by --max-schedules times the
// runs each keeps.
constexpr char kDeleteOldRuns[] =
    "DELETE FROM schedule_runs WHERE id IN (SELECT id FROM (SELECT id, created_at,"
    " row_number() OVER (PARTITION BY schedule_id"
    " ORDER BY created_at DESC, fire_time DESC, id DESC) AS rank FROM schedule_runs)"
    " WHERE rank > ?1 OR created_at < ?2 LIMIT ?3)";

Schedule ReadSchedule(const Statement& s) {
  Schedule r;
  r.id = s.String(0);
  r.name = s.String(1);
  r.description = s.OptString(2);
  r.cron_expression = s.String(3);
  r.timezone = s.String(4);
  r.queue_name = s.String(5);
  r.payload_template = s.String(6);
  r.priority = s.Int(7);
  r.max_retries = s.Int(8);
  r.timeout_seconds = s.Int(9);
  r.tags = DecodeTagsJson(s.Text(10)).value_or(Tags{});
  r.metadata = s.String(11);
  r.is_active = s.Int(12) != 0;
  r.missed_run_policy = ParseMissedRunPolicy(s.Text(13)).value_or(MissedRunPolicy::kSkip);
  r.overlap_policy = ParseOverlapPolicy(s.Text(14)).value_or(OverlapPolicy::kAllow);
  r.backfill_limit = s.Int(15);
  r.last_run_at = s.OptTime(16);
  r.next_run_at = s.OptTime(17);
  r.last_job_id = s.OptString(18);
  r.run_count = s.Int64(19);
  r.created_at = s.Time(20);
  r.updated_at = s.Time(21);
  return r;
}

// `tags` is the encoded tag object, kept alive by the caller (bound without a copy).
void BindSchedule(Statement& s, const Schedule& r, const std::string& tags) {
  s.Bind(1, r.id);
  s.Bind(2, r.name);
  s.Bind(3, r.description);
  s.Bind(4, r.cron_expression);
  s.Bind(5, r.timezone);
  s.Bind(6, r.queue_name);
  s.Bind(7, r.payload_template);
  s.Bind(8, r.priority);
  s.Bind(9, r.max_retries);
  s.Bind(10, r.timeout_seconds);
  s.Bind(11, tags);
  s.Bind(12, r.metadata);
  s.Bind(13, r.is_active ? 1 : 0);
  s.Bind(14, MissedRunPolicyName(r.missed_run_policy));
  s.Bind(15, OverlapPolicyName(r.overlap_policy));
  s.Bind(16, r.backfill_limit);
  s.Bind(17, r.last_run_at);
  s.Bind(18, r.next_run_at);
  s.Bind(19, r.last_job_id);
  s.Bind(20, static_cast<int64_t>(r.run_count));
  s.Bind(21, r.created_at);
  s.Bind(22, r.updated_at);
}

ScheduleRun ReadRun(const Statement& s) {
  ScheduleRun r;
  r.id = s.String(0);
  r.schedule_id = s.String(1);
  r.fire_time = s.Time(2);
  r.kind = ParseScheduleRunKind(s.Text(3)).value_or(ScheduleRunKind::kScheduled);
  r.job_id = s.OptString(4);
  r.error = s.OptString(5);
  r.created_at = s.Time(6);
  return r;
}

Status RunExpectingOneRow(Statement& stmt, const std::string& what) {
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  if (stmt.Changes() == 0) return Status::NotFound(what + " not found");
  return Status::Ok();
}

}  // namespace

Result<Schedule> GetSchedule(Connection& conn, const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGet));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound("schedule " + id + " not found");
  return ReadSchedule(stmt);
}

Result<std::vector<Schedule>> ListSchedules(Connection& conn, const ScheduleFilter& f) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kList));
  if (f.is_active) {
    stmt.Bind(1, *f.is_active ? 1 : 0);
  } else {
    stmt.BindNull(1);
  }
  stmt.Bind(2, f.queue_name);
  stmt.Bind(3, f.limit);
  stmt.Bind(4, f.offset);
  return CollectRows<Schedule>(stmt, ReadSchedule);
}

Result<long long> CountSchedules(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kCount));
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row ? stmt.Int64(0) : 0;
}

Result<std::vector<ScheduleRun>> ListScheduleRuns(Connection& conn, const std::string& schedule_id,
                                                  int limit, int offset) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kListRuns));
  stmt.Bind(1, schedule_id);
  stmt.Bind(2, limit);
  stmt.Bind(3, offset);
  return CollectRows<ScheduleRun>(stmt, ReadRun);
}

Result<std::optional<Instant>> NextScheduleDue(Connection& conn) {
  return QueryOptTime(conn, kNextDue, [](Statement&) {});
}

Status InsertSchedule(Connection& conn, const Schedule& s) {
  const std::string tags = EncodeTagsJson(s.tags);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsert));
  BindSchedule(stmt, s, tags);
  return stmt.Run();
}

Status UpdateSchedule(Connection& conn, const Schedule& s) {
  const std::string tags = EncodeTagsJson(s.tags);
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kUpdate));
  BindSchedule(stmt, s, tags);
  return RunExpectingOneRow(stmt, "schedule " + s.id);
}

Status DeleteSchedule(Connection& conn, const std::string& id) {
  {
    // Explicit, not left to the foreign key's cascade: the cost is visible here.
    REDRIVE_ASSIGN_OR_RETURN(Statement del, conn.Prepare(kDeleteRuns));
    del.Bind(1, id);
    REDRIVE_RETURN_IF_ERROR(del.Run());
  }
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDelete));
  stmt.Bind(1, id);
  return RunExpectingOneRow(stmt, "schedule " + id);
}

Result<std::vector<Schedule>> SelectDueSchedules(Connection& conn, Instant now, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kSelectDue));
  stmt.Bind(1, now);
  stmt.Bind(2, limit);
  return CollectRows<Schedule>(stmt, ReadSchedule);
}

Status InsertScheduleRun(Connection& conn, const ScheduleRun& run) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertRun));
  stmt.Bind(1, run.id);
  stmt.Bind(2, run.schedule_id);
  stmt.Bind(3, run.fire_time);
  stmt.Bind(4, ScheduleRunKindName(run.kind));
  stmt.Bind(5, run.job_id);
  stmt.Bind(6, run.error);
  stmt.Bind(7, run.created_at);
  return stmt.Run();
}

Result<long long> DeleteOldScheduleRuns(Connection& conn, int keep_per_schedule, Instant before,
                                        int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteOldRuns));
  stmt.Bind(1, keep_per_schedule);
  stmt.Bind(2, before);
  stmt.Bind(3, limit);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

}  // namespace redrive::store::sqlite::schedule_sql
