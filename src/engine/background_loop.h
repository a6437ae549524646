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
//
// Leadership: a service with a duty runs only while this node leads it
// (Duties). The loop asks before each pass of such a service and at least
// every kLeadershipCheckInterval (which renews the hold, or finds the duty
// free); a node that gains a duty runs it at once, one that loses it stops.
// Nudges make only the duties this node leads run early.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "engine/waiters.h"

namespace redrive::engine {

class BackgroundLoop {
 public:
  // `duties` must outlive the loop.
  BackgroundLoop(const Clock& clock, Waiters& waiters, Duties& duties,
                 std::chrono::milliseconds max_idle);
  ~BackgroundLoop();  // Stop()s

  void Add(std::unique_ptr<Service> service);
  void Start();
  void Stop();

  // Something is due at `t` (engine clock): wake up then at the latest.
  void Nudge(Instant t);
  // A long-poll deadline (engine clock) was added: re-plan the sleep. Unlike
  // Nudge it does not make the services run early.
  void NudgeWaiters(Instant t);

  // Runs every service once at `now` (those with a duty only if this node
  // leads it at `now`) and expires the long-polls due at `now`, on the
  // calling thread (tests). Returns the jobs the services changed.
  long long RunAllOnce(Instant now);

 private:
  struct Entry {
    std::unique_ptr<Service> service;
    Instant next_run{};
    bool leads = false;    // at the last check (always true without a duty)
    Instant next_check{};  // when to ask about its duty again
  };
  void Loop();
  // Asks whether this node leads e's duty at `now`; a duty just gained is
  // due at once. True for a service without a duty.
  bool CheckLeads(Entry& e, Instant now);
  // One pass of `e` at `now`; sets its next run.
  long long Run(Entry& e, Instant now);

  const Clock& clock_;
  Waiters& waiters_;
  Duties& duties_;
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
