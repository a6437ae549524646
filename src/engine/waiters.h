// Long-poll claims waiting for work, per queue. A claim that found nothing
// parks here until a wake-up says jobs of its queue became claimable (it is
// then re-run at once), its re-poll time comes (re-run too: the net under a
// lost cross-node wake-up), or its wait runs out (answered with what it has).
//
// No wake-up is missed. With concurrent commits a claim can find nothing,
// then a commit of its queue lands and wakes nobody (the claim is not parked
// yet), then the claim parks and would sleep to its deadline. So each queue
// has a wake sequence, moved by every wake-up of that queue: a claim reads
// Sequence(queue) before its transaction and parks with it; Add() refuses
// (kWokenMeanwhile) when the sequence has moved since, and the claim runs
// again at once instead.
//
// A claim whose caller left (Park::abandoned requested: its connection
// closed) is answered as timed out at once, wherever it is parked: it holds
// no slot, counts in no gauge and takes no wake-up until its deadline.
//
// Deadlines are engine-clock instants, like every other time the engine
// keeps: the background loop expires them at clock.Now(), so a manual clock
// drives long-polls in tests exactly as it drives leases.
//
// Thread-safety: all methods are thread-safe. Resume callbacks run on the
// thread that woke or expired them, never under the lock.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "core/clock.h"

namespace redrive::engine {

class Waiters {
 public:
  // Called with timed_out = false to retry the claim, true when the wait is over.
  using Resume = std::function<void(bool timed_out)>;

  struct Park {
    // Sequence(queue) read before the claim's transaction began.
    uint64_t seen;
    Instant deadline;
    // When to retry even without a wake-up (before the deadline), if ever.
    std::optional<Instant> repoll_at;
    // Requested when the claim's caller left: the waiter is then resumed as
    // timed out at once (on the requesting thread), and a Wake() meeting it
    // meanwhile skips it instead of spending a wake-up on it.
    std::stop_token abandoned;
  };
  enum class Parked {
    kYes,
    kWokenMeanwhile,  // the queue was woken since `seen`: retry now
    kClosed,          // after Close()
    kAbandoned,       // the caller has left: answer it now, with nothing
  };

  // The queue's wake sequence: it moves with every wake-up of the queue.
  uint64_t Sequence(const std::string& queue) const;

  // Parks a waiter, unless the queue was woken since park.seen, Close() was
  // called or its caller has left; then it keeps nothing and says why.
  Parked Add(const std::string& queue, const Park& park, Resume resume);

  // A claim's transaction, begun at sequence `seen` and at `at`, found no
  // job of `queue` left to claim. Until the queue's sequence moves, a claim
  // that would park anyway may park at once with it (KnownEmpty), as if it
  // had run then: whatever became claimable since moves the sequence, and
  // the wake-up that moves it resumes that many parked claims. Kept only
  // while `seen` is the queue's sequence; a few thousand queues at most (a
  // cache: forgetting costs a transaction).
  void LookedEmpty(const std::string& queue, uint64_t seen, Instant at);
  // The sequence of the last look that found `queue` empty, if the sequence
  // has not moved since and the look was after `after`.
  std::optional<uint64_t> KnownEmpty(const std::string& queue, Instant after) const;

  // Takes up to `n` waiters of `queue` (oldest first) and resumes them to
  // retry; moves the queue's sequence whether or not any was parked.
  // Abandoned waiters met on the way are resumed as timed out and not counted.
  // Returns how many it resumed to retry.
  long long Wake(const std::string& queue, long long n);
  // Wake() for a transaction that offers its new jobs before it commits
  // (Notifier::HandOver): the claims it wakes take them in it, and what they
  // do not take is published after the commit, which wakes the queue again.
  // So a look that found the queue empty still stands after it
  // (LookedEmpty): the queue is no less empty once the transaction commits.
  long long HandOver(const std::string& queue, long long n);
  void WakeAll(const std::string& queue);
  // Every queue (after a cross-node channel reconnects: what it missed is
  // unknown).
  void WakeEveryone();

  // Resumes the timed-out waiters (timed_out = true) and those whose re-poll
  // time has come (false). Returns the earliest deadline or re-poll time
  // still parked, if any.
  std::optional<Instant> ExpireDue(Instant now);

  // Answers every waiter as timed out and refuses new ones.
  void Close();

  // Claims parked now, in all and by queue.
  size_t size() const;
  std::map<std::string, size_t> CountByQueue() const;

 private:
  // Resumes the waiter `id` of `queue` as timed out, if still parked.
  // (The queue by value: the callback that calls this may be destroyed in it.)
  void Abandon(std::string queue, uint64_t id);
  using OnAbandon = std::stop_callback<std::function<void()>>;
  struct Waiter {
    uint64_t id;
    Instant deadline;
    std::optional<Instant> repoll_at;
    Resume resume;
    std::stop_token abandoned;
    // Calls Abandon() when the caller leaves. Never destroyed under mu_:
    // its destructor waits for a callback running on another thread, which
    // may be waiting for mu_. (Null when the caller cannot leave.)
    std::unique_ptr<OnAbandon> on_abandon;
  };
  uint64_t SequenceLocked(const std::string& queue) const;
  long long Wake(const std::string& queue, long long n, bool keep_empty_look);

  struct EmptyLook {
    uint64_t seen;
    Instant at;
  };
  static constexpr size_t kMaxEmptyLooks = 4096;

  mutable std::mutex mu_;
  std::map<std::string, std::list<Waiter>> by_queue_;
  std::map<std::string, EmptyLook> empty_;  // LookedEmpty(); gone when the queue is woken
  // A queue's sequence is everyone_ + its own count: both only grow, so the
  // sum moves whenever either does.
  std::map<std::string, uint64_t> woken_;
  uint64_t everyone_ = 0;
  std::atomic<uint64_t> next_id_{0};
  bool closed_ = false;
};

}  // namespace redrive::engine
