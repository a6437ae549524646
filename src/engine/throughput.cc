#include "engine/throughput.h"

namespace redrive::engine {

JobCounts& JobCounts::operator+=(const JobCounts& o) {
  enqueued += o.enqueued;
  completed += o.completed;
  failed += o.failed;
  deadlettered += o.deadlettered;
  return *this;
}

JobCounts JobCounts::operator-(const JobCounts& o) const {
  return {enqueued - o.enqueued, completed - o.completed, failed - o.failed,
          deadlettered - o.deadlettered};
}

void ThroughputHistory::Record(Instant at, std::map<std::string, JobCounts> per_queue) {
  std::lock_guard lock(mu_);
  samples_.push_back({at, std::move(per_queue)});
  while (samples_.size() > capacity_) samples_.pop_front();
}

std::vector<ThroughputPoint> ThroughputHistory::Points(
    const std::optional<std::string>& queue) const {
  std::lock_guard lock(mu_);
  std::vector<ThroughputPoint> out;
  out.reserve(samples_.size());
  for (const Sample& s : samples_) {
    ThroughputPoint p{s.at, {}};
    for (const auto& [name, counts] : s.per_queue) {
      if (!queue || *queue == name) p.counts += counts;
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace redrive::engine
