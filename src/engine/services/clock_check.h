// Clock skew between this node and a shared database. Leases, backoff and
// deadlines are written with one node's clock and judged with another's (the
// lease reaper runs on whichever node leads it), and jobs enqueued in SQL
// carry the database's time: a node whose clock is off grants leases that
// others see as expired, or retries that run late. Every node therefore
// compares its clock with the database's, periodically: the result is
// logged when it crosses the bound, reported by /health/ready and exported
// as the gauge redrive_clock_skew_seconds. It does not take the node out of
// rotation: a wrong database clock would then take out every node at once.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "core/clock.h"
#include "core/status.h"
#include "engine/services/service.h"

namespace redrive::engine {

// The last measurement, readable from any thread.
struct ClockSkewReport {
  Micros skew{0};   // database clock minus this node's (positive: the node is behind)
  Micros bound{0};  // the configured bound
  bool beyond = false;
};

class ClockSkewState {
 public:
  void Set(Micros skew, Micros bound) {
    bound_us_.store(bound.count());
    skew_us_.store(skew.count());
    measured_.store(true);
  }
  // Unset until a shared store answered once.
  std::optional<ClockSkewReport> Get() const;
  // "# TYPE redrive_clock_skew_seconds gauge ..." once measured; "" before.
  std::string RenderGauge() const;

 private:
  std::atomic<bool> measured_{false};
  std::atomic<int64_t> skew_us_{0};
  std::atomic<int64_t> bound_us_{0};
};

class ClockCheck final : public Service {
 public:
  // The database's clock, or unset for a store on this machine (SQLite).
  using DatabaseNow = std::function<Result<std::optional<Instant>>()>;

  ClockCheck(const Clock& clock, DatabaseNow database_now, ClockSkewState& state, Micros bound,
             std::chrono::seconds interval)
      : clock_(clock),
        database_now_(std::move(database_now)),
        state_(state),
        bound_(bound),
        interval_(interval) {}

  const char* name() const override { return "clock-check"; }
  const char* duty() const override { return nullptr; }  // every node checks its own clock
  ServiceRun RunOnce(Instant now) override;

 private:
  const Clock& clock_;
  DatabaseNow database_now_;
  ClockSkewState& state_;
  const Micros bound_;
  const std::chrono::seconds interval_;
  bool local_ = false;  // the store has no clock of its own: nothing to check
  bool was_beyond_ = false;
};

}  // namespace redrive::engine
