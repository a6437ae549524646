#include "core/retry_policy.h"

#include <algorithm>

#include "core/time_format.h"

namespace redrive {

Micros BackoffDelay(const BackoffPolicy& policy, int n, Random& random) {
  using std::chrono::milliseconds;
  const long long base = policy.base.count();
  const long long cap = policy.max.count();
  // A zero base stays zero for every n ("a zero base retries at once"), also
  // past n = 40 where the shift below is skipped.
  long long delay_ms = base == 0 ? 0 : cap;
  // base · 2^(n−1) overflows long before 2^40; past that the cap applies anyway.
  if (n >= 1 && n <= 40) {
    const long long exp = base << (n - 1);
    if (base == 0 || exp / (1LL << (n - 1)) == base) delay_ms = std::min(exp, cap);
  } else if (n < 1) {
    delay_ms = std::min(base, cap);
  }
  const auto jitter_us = static_cast<uint64_t>(Micros(policy.jitter).count());
  return Micros(milliseconds(delay_ms)) + Micros(random.UniformInclusive(jitter_us));
}

FailureDecision DecideFailure(const Job& job, Instant now, bool no_retry,
                              std::optional<std::chrono::milliseconds> retry_after, bool lease_lost,
                              Random& random) {
  FailureDecision d;
  if (no_retry) {
    d.dead_reason = DeadReason::kNonRetryable;
    return d;
  }
  if (job.retry_count >= job.max_retries) {
    d.dead_reason = lease_lost ? DeadReason::kLeaseExpired : DeadReason::kMaxRetriesExceeded;
    return d;
  }
  const Micros delay =
      retry_after ? Micros(*retry_after) : BackoffDelay(job.backoff, job.retry_count + 1, random);
  const Instant next = AddClamped(now, delay);
  // A retry that could only run at or after the deadline would never run.
  if (job.expires_at && next >= *job.expires_at) {
    d.dead_reason = DeadReason::kExpired;
    return d;
  }
  d.will_retry = true;
  d.next_run = next;
  return d;
}

}  // namespace redrive
