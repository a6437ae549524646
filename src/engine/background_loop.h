// Drives the background services and expires long-poll waits, on one thread.
// It sleeps until the earliest moment any of them needs to run (never longer
// than max_idle), and is woken early by Nudge() when a commit wrote an
// earlier due time — so a lease is reaped within milliseconds of expiring and
// a retry is promoted when its backoff ends, without a polling period.
//
// All due times are engine-clock instants; only the sleep itself is wall
// time (the distance to the next due time, measured on the clock). With a
// manual clock the loop wakes every max_idle and sees the time tests set;
// RunAllOnce(now) does the same pass at once.
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
  // A long-poll deadline (engine clock) was added: re-plan the sleep. Unlike
  // Nudge it does not make the services run early.
  void NudgeWaiters(Instant t);

  // Runs every service once at `now` and expires the long-polls due at
  // `now`, on the calling thread (tests). Returns the jobs the services changed.
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
  std::optional<Instant> nudged_;      // earliest due time reported since the last pass
  std::optional<Instant> waiter_due_;  // earliest long-poll deadline added since
  std::thread thread_;
  std::mutex run_mu_;  // serializes passes (loop vs RunAllOnce)
};

}  // namespace redrive::engine
