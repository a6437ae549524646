// The WriteExecutor of kTransactionPerRequest stores (PostgreSQL): a pool of
// threads, one per writer connection of the store, each running one op at a
// time in a transaction of its own — BeginWrite(), the op, Commit(); no
// savepoints. Hooks see the op's writes in that transaction; the effects
// sinks run for each committed op (`recorded`, the op's answer, `answered`).
//
// Lost races are retried: ABORTED from BeginWrite(), from the op or from
// Commit() (a serialization failure or deadlock: nothing was committed) runs
// the op again on a fresh transaction and TxContext, after a short jittered
// pause, up to max_attempts tries in all; then the op fails with
// SERVICE_UNAVAILABLE naming the last cause. UNAVAILABLE from BeginWrite() or
// Commit() (the database cannot be reached, or is read-only) fails the op at
// once: a client retries faster than a loop here that would hold its answer.
//
// Hand-over (SetHandOver, write_executor.h): after a request's op ran, and
// before its commit, the jobs it made claimable are offered to the claims
// parked on their queues. A woken claim submits its op on this thread, at
// once, inside the offer; those ops are taken aside, not queued, and run in
// the same transaction, each in a savepoint: the job a waiting worker gets
// costs one commit, not the enqueue's and then the claim's. The new jobs
// they took wake nobody after the commit. One that returns ABORTED, or
// whose transaction's commit is aborted, is queued to run again on its own;
// one that fails otherwise has its error as its answer, like the op that
// woke it. Not for a duty's op.
//
// LimitConcurrency(n) keeps all but n of the threads idle (their connections
// stay open), so that nodes sharing a database can divide it.
//
// Thread-safety: Submit() and LimitConcurrency() may be called from any
// thread. Ops, hooks, sinks and `after` callbacks run on the pool's threads,
// several at once.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/random.h"
#include "engine/write_executor.h"
#include "store/store.h"

namespace redrive::engine {

class PooledExecutor final : public WriteExecutor {
 public:
  // `threads` is the store's writer_connections (at least one is used).
  PooledExecutor(store::Store& store, const Clock& clock, Random& random, size_t threads,
                 WriteExecutorOptions options, EffectsSink recorded, EffectsSink answered);
  ~PooledExecutor() override;  // Stop()s

  void Start() override;
  void Stop() override;
  void Submit(WriteOp op) override;
  void LimitConcurrency(size_t ops) override;
  size_t Concurrency() const override;

 private:
  // An op a hand-over woke, run in the transaction of the op that woke it,
  // and what its run returned.
  struct Joined {
    WriteOp op;
    Status result;
  };

  void Loop();
  void RunOp(WriteOp& op);
  // One try of `op` on a fresh transaction: the op's or the store's error,
  // or OK with the committed ops' effects in `effects`. The ops the
  // hand-over ran in it are in `joined` either way.
  Status TryOnce(WriteOp& op, TxEffects& effects, std::vector<Joined>& joined);
  // Offers what `ctx`'s op made claimable to the hand-over and runs the ops
  // it woke in `tx`, until they make nothing claimable. An error: the
  // transaction can no longer commit.
  Status HandOver(store::WriteTx& tx, TxContext& ctx, std::vector<Joined>& joined);
  // Queues `ops` ahead of the others (to run again on their own).
  void Requeue(std::vector<WriteOp> ops);
  void PauseBeforeTry(int attempt);

  store::Store& store_;
  const Clock& clock_;
  Random& random_;
  const size_t threads_;
  const WriteExecutorOptions options_;
  EffectsSink recorded_;
  EffectsSink answered_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WriteOp> queue_;
  size_t limit_;        // ops run at once at most (LimitConcurrency)
  size_t running_ = 0;  // ops the threads run now
  bool accepting_ = false;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace redrive::engine
