// Samples the engine's job counters every `interval` (on the engine clock,
// at multiples of the interval since the epoch) and records what changed in
// each interval into a ThroughputHistory, so the console's chart has data on
// first load. The first pass only takes the baseline.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "engine/metrics.h"
#include "engine/services/service.h"
#include "engine/throughput.h"

namespace redrive::engine {

class ThroughputSampler final : public Service {
 public:
  // `metrics` and `history` must outlive the sampler.
  ThroughputSampler(const EngineMetrics& metrics, ThroughputHistory& history,
                    std::chrono::seconds interval)
      : metrics_(metrics), history_(history), interval_(interval) {}

  const char* name() const override { return "throughput-sampler"; }
  // Per node: it samples this node's counters.
  const char* duty() const override { return nullptr; }
  ServiceRun RunOnce(Instant now) override;

 private:
  // The first interval boundary strictly after `t`.
  Instant NextBoundary(Instant t) const;

  const EngineMetrics& metrics_;
  ThroughputHistory& history_;
  const std::chrono::seconds interval_;
  std::optional<Instant> next_sample_;  // unset until the baseline is taken
  std::map<std::string, JobCounts> last_totals_;
};

}  // namespace redrive::engine
