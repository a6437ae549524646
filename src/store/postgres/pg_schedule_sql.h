// redrive.schedules and redrive.schedule_runs: their SQL, row mapping and the
// store operations on them, as free functions over a Connection shared by
// the read and the write transaction.
// With `lock` (in a write transaction) GetSchedule locks its row FOR UPDATE.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/schedule.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres::schedule_sql {

// Reads.
Result<Schedule> GetSchedule(PgConnection& conn, const std::string& id, bool lock);
Result<std::vector<Schedule>> ListSchedules(PgConnection& conn, const ScheduleFilter& f);
Result<long long> CountSchedules(PgConnection& conn);
Result<std::vector<ScheduleRun>> ListScheduleRuns(PgConnection& conn,
                                                  const std::string& schedule_id, int limit,
                                                  int offset);
Result<std::optional<Instant>> NextScheduleDue(PgConnection& conn);

// Writes (inside a write transaction).
Status InsertSchedule(PgConnection& conn, const Schedule& s);
Status UpdateSchedule(PgConnection& conn, const Schedule& s);
Status DeleteSchedule(PgConnection& conn, const std::string& id);
// Locked FOR UPDATE SKIP LOCKED: two nodes never fire the same schedule at once.
Result<std::vector<Schedule>> SelectDueSchedules(PgConnection& conn, Instant now, int limit);
Status InsertScheduleRun(PgConnection& conn, const ScheduleRun& run);
Result<long long> DeleteOldScheduleRuns(PgConnection& conn, int keep_per_schedule, Instant before,
                                        int limit);

}  // namespace redrive::store::postgres::schedule_sql
