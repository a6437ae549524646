// Drives the background services and expires long-poll waits, on one thread.
// It sleeps until the earliest moment any of them needs to run (never longer
// than max_idle), and is woken early by Nudge() when a commit wrote an
// earlier due time — so a lease is reaped within milliseconds of expiring and
// a retry is promoted when its backoff ends, without a polling period.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "engine/services/service.h"
#include "engine/waiters.h"

namespace redrive::engine {

class BackgroundLoop {
 public:
  BackgroundLoop(const Clock& clock, Waiters& waiters, std::chrono::milliseconds max_idle);
  ~BackgroundLoop();  // Stop()s

  void Add(std::unique_ptr<Service> service);
  void Start();
  void Stop();

  // Something is due at `t` (engine clock): wake up then at the latest.
  void Nudge(Instant t);
  // A long-poll deadline was added: re-plan the sleep.
  void NudgeWaiters(std::chrono::steady_clock::time_point t);

  // Runs every service once at `now`, on the calling thread (tests).
  long long RunAllOnce(Instant now);

 private:
  struct Entry {
    std::unique_ptr<Service> service;
    Instant next_run{};
  };
  void Loop();

  const Clock& clock_;
  Waiters& waiters_;
  const std::chrono::milliseconds max_idle_;
  std::vector<Entry> services_;

  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::optional<Instant> nudged_;  // earliest due time reported since the last pass
  std::optional<std::chrono::steady_clock::time_point> waiter_due_;
  std::thread thread_;
  std::mutex run_mu_;  // serializes passes (loop vs RunAllOnce)
};

}  // namespace redrive::engine
