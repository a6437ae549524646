// The bench's one time source: a monotonic clock read as nanoseconds since a
// process-local epoch. Payloads carry these stamps, so enqueue-to-claim latency
// is measured on one clock inside one process and never sees NTP steps.
#pragma once

#include <chrono>
#include <cstdint>
#include <thread>

namespace redrive::bench {

using SteadyTime = std::chrono::steady_clock::time_point;

// The epoch is fixed the first time anything asks for it.
inline SteadyTime ProcessEpoch() {
  static const SteadyTime epoch = std::chrono::steady_clock::now();
  return epoch;
}

inline int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              ProcessEpoch())
      .count();
}

inline double NsToMs(int64_t ns) { return static_cast<double>(ns) / 1e6; }

inline void SleepMs(int64_t ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

}  // namespace redrive::bench
