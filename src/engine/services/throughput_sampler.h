// Samples this node's job counters every `interval` (on the engine clock, at
// multiples of the interval since the epoch) and records what changed in
// each interval through `record`: in the engine, one small write of the
// node's sample to the store (RecordThroughputInStore), where the samples of
// every node sharing the store add up into the cluster's history that the
// console's chart reads (Engine::Throughput). The first pass only takes the
// baseline, so a node that restarts counts only what it did since.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/throughput.h"
#include "engine/committer.h"
#include "engine/metrics.h"
#include "engine/services/service.h"

namespace redrive::engine {

class ThroughputSampler final : public Service {
 public:
  // Records one sample; an error keeps its counts for the next sample.
  using Recorder = std::function<Status(const ThroughputSample&)>;

  // `metrics` must outlive the sampler.
  ThroughputSampler(const EngineMetrics& metrics, std::string node_id,
                    std::chrono::seconds interval, Recorder record)
      : metrics_(metrics),
        node_id_(std::move(node_id)),
        interval_(interval),
        record_(std::move(record)) {}

  const char* name() const override { return "throughput-sampler"; }
  // Per node: it samples this node's counters.
  const char* duty() const override { return nullptr; }
  ServiceRun RunOnce(Instant now) override;

 private:
  // The first interval boundary strictly after `t`.
  Instant NextBoundary(Instant t) const;

  const EngineMetrics& metrics_;
  const std::string node_id_;
  const std::chrono::seconds interval_;
  const Recorder record_;
  std::optional<Instant> next_sample_;  // unset until the baseline is taken
  std::map<std::string, JobCounts> last_totals_;
};

// The engine's recorder: one transaction through `committer` that adds the
// sample to the store (WriteTx::RecordThroughput, which also adds it to the
// node's hourly totals) and prunes every node's samples older than `window`
// and hourly totals older than kHourlyTotalsKept before it (idempotent, so
// each node prunes as it writes; no duty needed). `committer` must outlive
// the recorder.
ThroughputSampler::Recorder RecordThroughputInStore(Committer& committer,
                                                    std::chrono::seconds window);

}  // namespace redrive::engine
