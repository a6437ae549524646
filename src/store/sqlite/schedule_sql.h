// The schedules and schedule_runs tables: their SQL, row mapping and the
// store operations on them, as free functions over a Connection shared by
// the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/schedule.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite::schedule_sql {

// Reads.
Result<Schedule> GetSchedule(Connection& conn, const std::string& id);
Result<std::vector<Schedule>> ListSchedules(Connection& conn, const ScheduleFilter& f);
Result<long long> CountSchedules(Connection& conn);
Result<std::vector<ScheduleRun>> ListScheduleRuns(Connection& conn, const std::string& schedule_id,
                                                  int limit, int offset);
Result<std::optional<Instant>> NextScheduleDue(Connection& conn);

// Writes (inside a write transaction).
Status InsertSchedule(Connection& conn, const Schedule& s);
Status UpdateSchedule(Connection& conn, const Schedule& s);
Status DeleteSchedule(Connection& conn, const std::string& id);
Result<std::vector<Schedule>> SelectDueSchedules(Connection& conn, Instant now, int limit);
Status InsertScheduleRun(Connection& conn, const ScheduleRun& run);
Result<long long> DeleteOldScheduleRuns(Connection& conn, int keep_per_schedule, Instant before,
                                        int limit);

}  // namespace redrive::store::sqlite::schedule_sql
