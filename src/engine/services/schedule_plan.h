// What a due schedule does in one pass: which fire times get a job, how many
// were missed, and when it next fires. Pure (no store): the schedule service
// (schedule_firing.h) applies the plan; tests table it.
//
// A fire time is ON TIME while it is the latest one due and at most
// kLateGrace old; every other due fire time was MISSED (the server was down,
// or the duty lagged). missed_run_policy decides what missed times get:
//   skip      nothing (the on-time one, if any, still fires)
//   run_once  one job, at the latest due time, for all of them
//   backfill  one job each (kind backfill) for the latest backfill_limit
//             of them, then the on-time one
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/schedule.h"
#include "core/status.h"

namespace redrive::engine {

inline constexpr Micros kLateGrace = std::chrono::minutes(1);
// The most missed fire times one pass counts (an every-second schedule down
// for a week has 600 000); past it the count is a lower bound.
inline constexpr long long kMaxMissedCounted = 100'000;

struct PlannedRun {
  Instant fire_time{};
  ScheduleRunKind kind = ScheduleRunKind::kScheduled;
  friend bool operator==(const PlannedRun&, const PlannedRun&) = default;
};

struct SchedulePlan {
  std::vector<PlannedRun> runs;         // jobs to enqueue, oldest fire time first
  long long missed = 0;                 // due fire times that were not on time
  std::optional<Instant> first_missed;  // the earliest of them
  long long uncovered = 0;              // missed times that get no job (skip, backfill's excess)
  std::optional<Instant> next_run_at;   // the first fire time after `now`
  // Set when the expression or zone no longer parses (a tz database
  // update removed the zone): the schedule cannot fire and is paused.
  std::optional<std::string> error;
};

// REQUIRES: schedule.next_run_at is set and <= now.
SchedulePlan PlanDueRuns(const Schedule& schedule, Instant now);

// The first fire time of `schedule` after `after`, or the validation error
// of its expression or zone (fields cron_expression, timezone).
Result<std::optional<Instant>> NextRunAfter(const Schedule& schedule, Instant after);

}  // namespace redrive::engine
