#include "engine/services/schedule_plan.h"

#include <algorithm>
#include <deque>

#include "cron/cron_expression.h"
#include "cron/next_fire.h"

namespace redrive::engine {

Result<std::optional<Instant>> NextRunAfter(const Schedule& schedule, Instant after) {
  REDRIVE_ASSIGN_OR_RETURN(cron::CronExpression expression,
                           cron::ParseCron(schedule.cron_expression));
  REDRIVE_ASSIGN_OR_RETURN(const date::time_zone* zone, cron::FindTimeZone(schedule.timezone));
  return cron::NextFire(expression, zone, after);
}

SchedulePlan PlanDueRuns(const Schedule& schedule, Instant now) {
  SchedulePlan plan;
  Result<cron::CronExpression> expression = cron::ParseCron(schedule.cron_expression);
  Result<const date::time_zone*> zone = cron::FindTimeZone(schedule.timezone);
  if (!expression.ok() || !zone.ok()) {
    plan.error = !expression.ok() ? expression.status().message() : zone.status().message();
    return plan;
  }
  // The due fire times, oldest first: the count of all of them, and the
  // latest `keep` (what a backfill may need, plus the on-time one).
  const std::size_t keep = static_cast<std::size_t>(std::max(schedule.backfill_limit, 1)) + 1;
  std::deque<Instant> latest;
  long long due_count = 0;
  std::optional<Instant> t = schedule.next_run_at;
  Instant first = *t;
  while (t && *t <= now && due_count < kMaxMissedCounted) {
    ++due_count;
    latest.push_back(*t);
    if (latest.size() > keep) latest.pop_front();
    t = cron::NextFire(*expression, *zone, *t);
  }
  const bool counted_all = !t || *t > now;
  // The first fire time after now on the schedule's own succession: for
  // `@every`, the period counts from the last fire time, not from this pass
  // (which runs late by its own lag, and would drift by it at every tick).
  // Past kMaxMissedCounted times, from now.
  plan.next_run_at = counted_all ? t : cron::NextFire(*expression, *zone, now);

  std::optional<Instant> on_time;
  if (counted_all && !latest.empty() && now - latest.back() <= kLateGrace) {
    on_time = latest.back();
    latest.pop_back();
    --due_count;
  }
  plan.missed = due_count;
  if (due_count > 0) plan.first_missed = first;

  switch (schedule.missed_run_policy) {
    case MissedRunPolicy::kSkip:
      plan.uncovered = due_count;
      break;
    case MissedRunPolicy::kRunOnce:
      if (!on_time && !latest.empty()) on_time = latest.back();
      break;
    case MissedRunPolicy::kBackfill: {
      const std::size_t n = std::min(latest.size(), keep - 1);
      for (std::size_t i = latest.size() - n; i < latest.size(); ++i) {
        plan.runs.push_back({latest[i], ScheduleRunKind::kBackfill});
      }
      plan.uncovered = due_count - static_cast<long long>(n);
      break;
    }
  }
  if (on_time) plan.runs.push_back({*on_time, ScheduleRunKind::kScheduled});
  return plan;
}

}  // namespace redrive::engine
