#include "engine/services/throughput_sampler.h"

namespace redrive::engine {

Instant ThroughputSampler::NextBoundary(Instant t) const {
  const Micros step = std::chrono::duration_cast<Micros>(interval_);
  return Instant((t.time_since_epoch() / step + 1) * step);
}

ServiceRun ThroughputSampler::RunOnce(Instant now) {
  if (next_sample_ && now < *next_sample_) return {0, false, next_sample_};
  std::map<std::string, JobCounts> totals = metrics_.Totals();
  if (next_sample_) {
    // The loop may run late (a long sweep, a suspended process): the point is
    // stamped with the boundary it was due at and holds everything since the
    // previous sample, so no event is lost or counted twice.
    std::map<std::string, JobCounts> delta;
    for (const auto& [queue, total] : totals) {
      auto it = last_totals_.find(queue);
      delta[queue] = it == last_totals_.end() ? total : total - it->second;
    }
    history_.Record(*next_sample_, std::move(delta));
  }
  last_totals_ = std::move(totals);
  next_sample_ = NextBoundary(now);
  return {0, false, next_sample_};
}

}  // namespace redrive::engine
