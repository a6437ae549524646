// Long-poll claims waiting for work, per queue. A claim that found nothing
// parks here until a commit makes jobs of its queue claimable (it is then
// re-run at once) or its wait runs out (it is answered with what it has).
//
// Waiting is plain wall time (steady clock): it is transport behaviour, not
// job logic, and does not affect any job's state.
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

namespace redrive::engine {

class Waiters {
 public:
  using SteadyTime = std::chrono::steady_clock::time_point;
  // Called with timed_out = false to retry the claim, true when the wait is over.
  using Resume = std::function<void(bool timed_out)>;

  // Parks a waiter; returns false (and keeps nothing) after Close().
  bool Add(const std::string& queue, SteadyTime deadline, Resume resume);

  // Takes up to `n` waiters of `queue` (oldest first) and resumes them to retry.
  void Wake(const std::string& queue, long long n);
  void WakeAll(const std::string& queue);

  // Resumes the timed-out waiters (timed_out = true). Returns the earliest
  // deadline still parked, if any.
  std::optional<SteadyTime> ExpireDue(SteadyTime now);

  // Answers every waiter as timed out and refuses new ones.
  void Close();

  size_t size() const;

 private:
  struct Waiter {
    SteadyTime deadline;
    Resume resume;
  };
  mutable std::mutex mu_;
  std::map<std::string, std::list<Waiter>> by_queue_;
  bool closed_ = false;
};

}  // namespace redrive::engine
