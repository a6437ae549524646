// W1, throughput with retries: bulk-enqueue N jobs, then C consumers drain
// them; jobs with i % 100 < fail_pct fail their first attempt and must succeed
// on the retry (queue: max_retries 1, zero backoff). Mirrors the peer
// harness's W1, so `process_rate` and `first_pass_rate` compare directly.
#pragma once

#include <cstdint>
#include <string>

#include "bench_config.h"
#include "consumer_group.h"
#include "job_ledger.h"

namespace redrive::bench {

struct ThroughputResult {
  bool ok = false;
  std::string error;  // why the phase could not run or finish
  std::string queue;
  int64_t jobs = 0;
  double enqueue_ms = 0, enqueue_rate = 0;
  double process_ms = 0, process_rate = 0;        // first claim → server shows all finished
  double first_pass_ms = 0, first_pass_rate = 0;  // first claim → every job claimed once
  double wall_ms = 0;                             // enqueue start → server shows all finished
  LedgerTally tally;
  int64_t planned_failures = 0;
  int64_t expected_invocations = 0;  // jobs + planned failures
  int64_t server_completed = -1, server_deadletter = -1, server_unfinished = -1;
  bool timed_out = false;
  ConsumerStats consumers;
};

ThroughputResult RunThroughput(const BenchConfig& cfg, const ClaimMode& mode);

}  // namespace redrive::bench
