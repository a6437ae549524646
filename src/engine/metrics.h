// The engine's Prometheus metrics: job counters fed from committed group
// commits, the group-commit histogram, and the store gauges rendered at
// scrape time. Counters are in memory and per process: they start at 0 when
// the server starts (Prometheus' rate()/increase() handle the reset) and, with
// several nodes on one PostgreSQL store, each node counts what it committed.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/metrics_registry.h"
#include "core/throughput.h"
#include "engine/requests.h"
#include "engine/tx_context.h"
#include "engine/write_hook.h"

namespace redrive::engine {

class EngineMetrics {
 public:
  EngineMetrics();

  // Called once per successful commit (a group commit, or one request's
  // transaction) with its merged effects and the number of requests it
  // carried. Called from several writer threads at once with a pooled
  // executor (the registry is locked). Never called for a failed commit, so a
  // counter only moves for changes that are durable.
  void OnCommitted(const TxEffects& effects, size_t batch_size);

  // The counters and histograms (Prometheus text).
  std::string Render() const;

  // Running totals per queue since start of the events the throughput chart
  // shows (enqueued, completed, failed attempts, dead-lettered) and of what
  // the hourly totals add (claims, their waiting and processing times),
  // summed from the counters; read by the throughput sampler.
  std::map<std::string, JobCounts> Totals() const;

 private:
  MetricsRegistry registry_;
};

// The write hook that feeds the job counters: records the metric events of
// each write's outcome (core's outcome table) in ctx.effects.job_events,
// which OnCommitted adds up once the batch is committed.
class JobEventCounter final : public WriteHook {
 public:
  Status OnJob(store::WriteTx& tx, TxContext& ctx, const JobWrite& write) override;
  Status OnQueue(store::WriteTx&, TxContext&, const QueueWrite&) override { return Status::Ok(); }
};

// The gauges read from the store at scrape time: jobs by queue and status,
// DLQ size and age of the oldest dead job by queue (Prometheus text).
std::string RenderQueueGauges(const std::vector<QueueView>& queues, Instant now);

// The long-poll gauge: claims parked in the engine now, by queue (Prometheus
// text; a queue with none has no series).
std::string RenderLongPollGauge(const std::map<std::string, size_t>& parked_by_queue);

}  // namespace redrive::engine
