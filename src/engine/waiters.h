// Long-poll claims waiting for work, per queue. A claim that found nothing
// parks here until a commit makes jobs of its queue claimable (it is then
// re-run at once) or its wait runs out (it is answered with what it has).
//
// Deadlines are engine-clock instants, like every other time the engine
// keeps: the background loop expires them at clock.Now(), so a manual clock
// drives long-polls in tests exactly as it drives leases.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"

namespace redrive::engine {

class Waiters {
 public:
  // Called with timed_out = false to retry the claim, true when the wait is over.
  using Resume = std::function<void(bool timed_out)>;

  // Parks a waiter; returns false (and keeps nothing) after Close().
  bool Add(const std::string& queue, Instant deadline, Resume resume);

  // Takes up to `n` waiters of `queue` (oldest first) and resumes them to retry.
  void Wake(const std::string& queue, long long n);
  void WakeAll(const std::string& queue);

  // Resumes the timed-out waiters (timed_out = true). Returns the earliest
  // deadline still parked, if any.
  std::optional<Instant> ExpireDue(Instant now);

  // Answers every waiter as timed out and refuses new ones.
  void Close();

  // Claims parked now, in all and by queue.
  size_t size() const;
  std::map<std::string, size_t> CountByQueue() const;

 private:
  struct Waiter {
    Instant deadline;
    Resume resume;
  };
  mutable std::mutex mu_;
  std::map<std::string, std::list<Waiter>> by_queue_;
  bool closed_ = false;
};

}  // namespace redrive::engine
