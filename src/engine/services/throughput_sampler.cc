#include "engine/services/throughput_sampler.h"

#include <spdlog/spdlog.h>

#include "core/time_format.h"

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
    // previous sample, so no event is lost or counted twice. Queues that did
    // nothing are left out (the store still records the interval).
    ThroughputSample sample{node_id_, *next_sample_, {}};
    for (const auto& [queue, total] : totals) {
      auto it = last_totals_.find(queue);
      JobCounts delta = it == last_totals_.end() ? total : total - it->second;
      if (!delta.empty()) sample.per_queue.emplace(queue, delta);
    }
    if (Status st = record_(sample); !st.ok()) {
      // Keep the old baseline: the next sample carries these counts.
      spdlog::warn("throughput sample at {}: {}", FormatTime(sample.at), st.ToString());
      next_sample_ = NextBoundary(now);
      return {0, false, next_sample_};
    }
  }
  // The first pass keeps the empty baseline: the engine's counts start at
  // zero, so what happened before the loop first ran (a node's first
  // requests can beat it on a loaded machine) goes into the first point.
  if (next_sample_) last_totals_ = std::move(totals);
  next_sample_ = NextBoundary(now);
  return {0, false, next_sample_};
}

ThroughputSampler::Recorder RecordThroughputInStore(Committer& committer,
                                                    std::chrono::seconds window) {
  return [&committer, window](const ThroughputSample& sample) {
    return committer.RunAndWait([&sample, window](store::WriteTx& tx, TxContext&) -> Status {
      REDRIVE_RETURN_IF_ERROR(tx.RecordThroughput(sample));
      REDRIVE_RETURN_IF_ERROR(tx.DeleteThroughputBefore(sample.at - window).status());
      return tx.DeleteHourlyThroughputBefore(sample.at - kHourlyTotalsKept).status();
    });
  };
}

}  // namespace redrive::engine
