// W3, dead-letter: with C consumers idle, bulk-enqueue N jobs whose handler
// always fails, max_retries 2 and zero backoff. Measures the time from enqueue
// start until GET /jobs/stats shows all N in `deadletter`, and checks that
// every job ran exactly max_retries + 1 = 3 times.
#pragma once

#include <cstdint>
#include <string>

#include "bench_config.h"
#include "consumer_group.h"

namespace redrive::bench {

struct DeadLetterResult {
  bool ok = false;
  std::string error;
  std::string queue;
  int64_t jobs = 0;
  int max_attempts = 0;
  double enqueue_ms = 0;
  double all_dead_ms = 0;  // enqueue start → stats show every job dead
  int64_t dead = 0;        // the server's deadletter count at the end of polling
  int64_t invocations = 0, expected_invocations = 0;
  int64_t wrong_attempts = 0;  // jobs not run exactly max_attempts times
  int64_t server_unfinished = -1;
  bool timed_out = false;
  ConsumerStats consumers;
};

DeadLetterResult RunDeadLetter(const BenchConfig& cfg, const ClaimMode& mode);

}  // namespace redrive::bench
