// Retry policy: the backoff schedule and the decision between retrying and
// dead-lettering after a failure. Pure functions.
#pragma once

#include <chrono>
#include <optional>

#include "core/clock.h"
#include "core/job.h"
#include "core/random.h"

namespace redrive {

// delay(n) = min(base · 2^(n−1), max) + uniform(0, jitter), for n >= 1
// (n = the retry_count after the failure is charged). Never overflows.
Micros BackoffDelay(const BackoffPolicy& policy, int n, Random& random);

struct FailureDecision {
  bool will_retry = false;
  Instant next_run{};                          // when will_retry
  DeadReason dead_reason = DeadReason::kNone;  // when !will_retry
};

// Decides what a failure of `job` (retry_count not yet incremented) leads to.
// `lease_lost` marks failures by lease expiry / timeout (dead reason
// lease_expired instead of max_retries_exceeded).
FailureDecision DecideFailure(const Job& job, Instant now, bool no_retry,
                              std::optional<std::chrono::milliseconds> retry_after, bool lease_lost,
                              Random& random);

}  // namespace redrive
