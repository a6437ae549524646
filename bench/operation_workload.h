// W5, a bulk operation under load: N jobs are dead-lettered (max_retries 0,
// C consumers failing each once), then one POST /operations retries them all
// at full speed (no rate; --operation-rate gives one), in the server's
// batches. Meanwhile W2 runs
// on another queue of its own, so its enqueue-to-claim latency shows what the
// operation costs other queues' workers; W2 is also measured alone just
// before, for the comparison in the same run. Measures the operation's
// jobs/s from the server's stamps (started_at → finished_at) and checks that
// every job was retried once: the operation's done = N, the queue's pending
// = N, nothing left dead.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "bench_config.h"
#include "consumer_group.h"
#include "latency_workload.h"

namespace redrive::bench {

struct OperationResult {
  bool ok = false;
  std::string error;
  std::string queue;
  int64_t jobs = 0;
  double dead_letter_ms = 0;  // enqueue start → stats show every job dead
  std::string operation_id;
  std::string state;  // the operation's final state
  int64_t matched = 0, done = 0, failed = 0;
  double run_ms = 0;      // the server's started_at → finished_at
  double jobs_per_s = 0;  // done / run_ms
  double seen_ms = 0;     // POST /operations → the client saw it finished (polled every 50 ms)
  int64_t pending_after = -1, dead_after = -1;  // the queue's counts at the end
  bool timed_out = false;
  // W2 on other queues: alone, then while the operation runs (nullopt when
  // --latency-seconds is 0).
  std::optional<LatencyResult> latency_alone, latency_during;
};

OperationResult RunOperation(const BenchConfig& cfg, const ClaimMode& mode);

}  // namespace redrive::bench
