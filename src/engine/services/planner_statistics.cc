#include "engine/services/planner_statistics.h"

#include <spdlog/spdlog.h>

namespace redrive::engine {

ServiceRun PlannerStatisticsRefresh::RunOnce(Instant now) {
  ServiceRun run;
  if (not_kept_) return run;
  Result<store::PlannerStatistics> r = refresh_();
  if (r.ok() && *r == store::PlannerStatistics::kNotKept) {
    not_kept_ = true;
    return run;
  }
  run.next_run = now + interval_;
  if (!r.ok()) {
    spdlog::warn("planner statistics: {}", r.status().ToString());
  } else if (*r == store::PlannerStatistics::kRefreshed) {
    run.changed = 1;
    spdlog::debug("planner statistics: taken again (the tables have doubled since)");
  }
  return run;
}

}  // namespace redrive::engine
