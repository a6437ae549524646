// SqliteWriteTx's schedule operations: thin forwards to schedule_sql.
#include "store/sqlite/schedule_sql.h"
#include "store/sqlite/sqlite_write_tx.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertSchedule(const Schedule& schedule) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return schedule_sql::InsertSchedule(conn(), schedule);
}

Status SqliteWriteTx::UpdateSchedule(const Schedule& schedule) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return schedule_sql::UpdateSchedule(conn(), schedule);
}

Status SqliteWriteTx::DeleteSchedule(const std::string& id) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return schedule_sql::DeleteSchedule(conn(), id);
}

Result<std::vector<Schedule>> SqliteWriteTx::SelectDueSchedules(Instant now, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return schedule_sql::SelectDueSchedules(conn(), now, limit);
}

Status SqliteWriteTx::InsertScheduleRun(const ScheduleRun& run) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return schedule_sql::InsertScheduleRun(conn(), run);
}

Result<long long> SqliteWriteTx::DeleteOldScheduleRuns(int keep_per_schedule, Instant before,
                                                       int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return schedule_sql::DeleteOldScheduleRuns(conn(), keep_per_schedule, before, limit);
}

}  // namespace redrive::store::sqlite
