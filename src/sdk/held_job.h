// A job the Worker holds, from its claim until its outcome is reported or the
// job is dropped (see worker_impl.h).
#pragma once

#include <chrono>

#include "redrive/types.h"
#include "redrive/worker.h"

namespace redrive::sdk {

using SteadyClock = std::chrono::steady_clock;

// Where a held job is. Every state but kAcking is heartbeated: the lease is
// the worker's until the server has its outcome.
enum class HeldState {
  kBuffered,  // claimed, waiting for a free slot (prefetched), or given back at Stop()
  kRunning,   // its handler runs
  kReported,  // its outcome waits in the AckQueue
  kAcking,    // its outcome is on its way to the server
};

struct HeldJob {
  ClaimedJob job;
  CancellationToken token;
  HeldState state = HeldState::kBuffered;
  SteadyClock::time_point next_heartbeat;
  // When the lease ends as far as this worker knows: the send time of the
  // last successful claim/heartbeat plus the lease. Past it without a newer
  // heartbeat, the server has (or soon will have) given the job away.
  SteadyClock::time_point lease_deadline;
  bool lost = false;  // lease lost or shutdown: its outcome is not reported
};

}  // namespace redrive::sdk
