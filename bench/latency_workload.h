// W2, enqueue-to-claim latency: C consumers idle in long-poll claims while
// single jobs (POST /jobs) arrive at a steady rate R for T seconds. Each
// payload carries its send stamp; latency = the moment the claimed job reaches
// the handler − that stamp, on one monotonic clock in this process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "bench_config.h"
#include "consumer_group.h"
#include "latency_summary.h"

namespace redrive::bench {

struct LatencyResult {
  bool ok = false;
  std::string error;
  std::string queue;
  int64_t planned = 0;  // round(R · T)
  int64_t sent = 0;     // enqueues the server accepted
  int64_t send_errors = 0;
  int64_t received = 0;  // distinct jobs delivered
  int64_t missing = 0;   // sent but never delivered within the drain limit
  int64_t duplicated = 0;
  double achieved_rate = 0;    // sent / production time
  double max_send_lag_ms = 0;  // worst delay of a send behind its slot (client/server stall)
  LatencySummary latency;
  bool timed_out = false;
  ConsumerStats consumers;
};

// Where and how long: by default W2 itself (queue phase "w2", R · T jobs).
// With `until`, production stops early once it holds (checked every
// millisecond; keep it cheap) and the jobs sent so far are the plan: W5
// measures latency only while its operation runs. `on_start` is called once
// the consumers are parked, just before the first send.
struct LatencyRun {
  std::string phase = "w2";
  std::function<void()> on_start;
  std::function<bool()> until;
};

LatencyResult RunLatency(const BenchConfig& cfg, const ClaimMode& mode, const LatencyRun& run = {});

}  // namespace redrive::bench
