// The notifier seam: how long-poll wake-ups travel. After each commit the
// engine publishes which queues it made claimable; a notifier wakes this
// node's parked claims of those queues (Waiters) and, for several nodes on
// one database, tells the others.
//
// LocalNotifier is in-process only: enough for one node (and for several
// processes on one SQLite file a claim still finds every job on its next try;
// a parked claim re-polls after EngineOptions::claim_repoll). ChannelNotifier
// is the cross-node one, over the WakeChannel a shared store provides
// (store.h; PostgreSQL LISTEN/NOTIFY); the engine uses it whenever
// Store::NewWakeChannel() gives one. Any cross-node notifier does three
// things (EngineOptions::notifier takes another):
//   - Publish() wakes local waiters at once (Deliver) and sends the wake-up
//     to the other nodes, best effort, after the commit it describes;
//   - wake-ups from other nodes arrive on the notifier's own thread and are
//     Deliver()ed to the local waiters;
//   - after the channel reconnects (what it missed is unknown) it calls
//     Waiters::WakeEveryone(), so every parked claim looks again.
// A remote wake-up moves the queue's wake sequence like a local one, so a
// claim whose transaction ran before another node's commit and parks after
// its notification arrived retries instead of sleeping (waiters.h).
//
// Thread-safety: Publish() is called from executor threads, several at once
// with a PooledExecutor; implementations are thread-safe.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/status.h"
#include "engine/waiters.h"
#include "store/store.h"

namespace redrive::engine {

// What one commit (or one batch of them) made claimable.
struct WakeUp {
  // Queues that gained claimable jobs, and how many.
  std::map<std::string, long long> became_claimable;
  // Queues whose claimability changed for another reason (resumed): wake all.
  std::map<std::string, bool> wake_all;

  bool empty() const { return became_claimable.empty() && wake_all.empty(); }
};

// Wakes `waiters` as `wake` says: n waiters per queue that gained n jobs,
// every waiter of a queue to wake all.
void Deliver(Waiters& waiters, const WakeUp& wake);

class Notifier {
 public:
  virtual ~Notifier() = default;
  // From now on, wake-ups go to `local` (which outlives Stop()). An error
  // fails Engine::Start().
  virtual Status Start(Waiters& local) = 0;
  // No wake-up is delivered after it returns. Idempotent.
  virtual void Stop() = 0;
  // After a commit: wake this node's waiters of these queues and tell the
  // other nodes. Before Start() or after Stop(), does nothing.
  virtual void Publish(const WakeUp& wake) = 0;
  // Before a commit (a group committer's hand-over, write_executor.h): wake
  // up to n of this node's waiters of each queue that gains n jobs, and no
  // other node's; returns how many it woke. Before Start() or after Stop(),
  // wakes none.
  virtual long long HandOver(const std::map<std::string, long long>& claimable) = 0;
};

// In-process only: Publish() delivers to the local waiters.
class LocalNotifier final : public Notifier {
 public:
  Status Start(Waiters& local) override;
  void Stop() override;
  void Publish(const WakeUp& wake) override;
  long long HandOver(const std::map<std::string, long long>& claimable) override;

 private:
  Waiters* Local();
  std::mutex mu_;
  Waiters* local_ = nullptr;  // guarded by mu_ (set and cleared, not used under it)
};

// Over a store's WakeChannel: Publish() wakes local waiters, then hands the
// queues to the channel (which sends them outside any transaction). A queue
// another node published wakes every local waiter of it (the channel says
// which queue, not how many jobs: those that find nothing park again); a
// reset of the channel wakes every waiter.
class ChannelNotifier final : public Notifier {
 public:
  explicit ChannelNotifier(std::unique_ptr<store::WakeChannel> channel)
      : channel_(std::move(channel)) {}
  ~ChannelNotifier() override;  // Stop()s

  Status Start(Waiters& local) override;
  void Stop() override;
  void Publish(const WakeUp& wake) override;
  long long HandOver(const std::map<std::string, long long>& claimable) override {
    return local_.HandOver(claimable);
  }

 private:
  std::unique_ptr<store::WakeChannel> channel_;
  LocalNotifier local_;
};

}  // namespace redrive::engine
