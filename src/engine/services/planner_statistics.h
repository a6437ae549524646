// Planner statistics: asks the store, every `interval`, to take its query
// planner's statistics again where the tables have grown enough since
// (Store::RefreshPlannerStatistics: on PostgreSQL, an ANALYZE once jobs or
// job_history has doubled). A duty: one node does it for all, since the
// statistics are the database's. A store that keeps none (SQLite) says so
// at the first pass, and the service stops asking.
#pragma once

#include <chrono>
#include <functional>

#include "core/clock.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "store/store.h"

namespace redrive::engine {

// One catalog query a second on the leader: a table that doubles in less
// than a second is analyzed within one more.
inline constexpr std::chrono::seconds kPlannerStatisticsInterval{1};

class PlannerStatisticsRefresh final : public Service {
 public:
  using Refresh = std::function<Result<store::PlannerStatistics>()>;

  PlannerStatisticsRefresh(Refresh refresh, std::chrono::seconds interval)
      : refresh_(std::move(refresh)), interval_(interval) {}

  const char* name() const override { return "planner-statistics"; }
  const char* duty() const override { return duty::kPlannerStatistics; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Refresh refresh_;
  std::chrono::seconds interval_;
  bool not_kept_ = false;  // the store keeps none: never ask again
};

}  // namespace redrive::engine
