// The seam every write of the engine goes through. A WriteOp's `run` is
// called inside a store write transaction; its `after` learns the outcome
// only once that transaction is committed (or failed), so no request is
// answered before its data is durable. Two implementations, chosen by the
// store's traits (store.h, WriteModel):
//   - GroupCommitter (group_committer.h, kGroupCommit; SQLite): one thread,
//     one transaction per batch of ops, a savepoint per op; on a
//     pipelined_sync store a second thread syncs each commit while the next
//     batch runs, and answers the batch after its sync.
//   - PooledExecutor (pooled_executor.h, kTransactionPerRequest;
//     PostgreSQL): writer_connections threads, one transaction per op, an op
//     the store aborted (ABORTED: a lost serialization or deadlock race) run
//     again on a fresh transaction.
//
// Effects plug in at two points, and no executor knows metrics, webhooks or
// waiters: write hooks (write_hook.h) see each write inside the op's
// transaction; the effects sinks get the effects of each commit — `recorded`
// before any op of it is answered (metrics: an answered client sees the
// counters it moved), `answered` after all of them are (wake-ups). Both
// executors offer the jobs a request's op made claimable to the hand-over
// before they commit (SetHandOver: parked claims of their queue run in the
// same transaction, each in a savepoint).
//
// Re-running (PooledExecutor): `run` may be called more than once for one op,
// each time on a fresh transaction and TxContext, and only the last call's
// transaction commits. So `run` changes nothing that outlives it except a
// result slot it rewrites whole on every call; state an op keeps across
// calls changes only in `after`, which is called exactly once.
//
// Thread-safety: Submit() and RunAndWait() may be called from any thread.
// `run`, `after`, the hooks and the sinks are called on executor threads —
// with a PooledExecutor several at once, so hooks and sinks must be
// thread-safe.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/random.h"
#include "core/status.h"
#include "engine/tx_context.h"
#include "engine/write_hook.h"
#include "store/store.h"

namespace redrive::engine {

struct WriteOp {
  // Runs inside a write transaction. A non-OK result undoes this op's writes
  // (its savepoint, or its transaction) and is passed to `after` as is;
  // ABORTED makes a PooledExecutor run it again.
  std::function<Status(store::WriteTx&, TxContext&)> run;
  // Called once: with run's error, or with the commit's status.
  std::function<void(Status)> after;
  // A background duty's op (RunAndWait: a sweep, a batch of a bulk
  // operation). A GroupCommitter never puts one in a transaction with
  // requests' ops: a request waits for the duty's batch only when it arrives
  // while that batch runs, not for the batch's run and then its own.
  bool background = false;
};

class WriteExecutor {
 public:
  // Called after each successful commit with the effects of the ops it
  // committed and how many ops it carried (see the top of this file).
  using EffectsSink = std::function<void(const TxEffects&, size_t ops)>;
  // Called on the executor thread, inside an open transaction, with the
  // queues the ops just run made claimable and how many jobs each gained:
  // it wakes this node's parked claims of those queues (and of no other
  // node: nothing is committed yet) and says whether it woke any. Their
  // ops, submitted as they wake, join the same transaction; only the new
  // jobs they did not take are left in the effects for `answered`.
  using HandOver = std::function<bool(const std::map<std::string, long long>& claimable)>;

  virtual ~WriteExecutor() = default;

  // Adds a hook called for every write of every op, in the order added.
  // `hook` must outlive the executor. Call before Start().
  void AddHook(WriteHook* hook) { hooks_.push_back(hook); }
  // Names the node whose ops this executor runs (TxContext::node_id: on
  // every history entry they write). Call before Start().
  void SetNodeId(std::string node_id) { node_id_ = std::move(node_id); }
  // The queue limit of every op's context (TxContext::max_queues). Call
  // before Start().
  void SetMaxQueues(size_t max_queues) { max_queues_ = max_queues; }
  // The hand-over of new jobs to parked claims: the claims it wakes run in
  // the transaction that made the jobs (not for a duty's op). Call before
  // Start().
  void SetHandOver(HandOver hand_over) { hand_over_ = std::move(hand_over); }

  virtual void Start() = 0;
  // Refuses new ops (SERVICE_UNAVAILABLE), runs and commits what is queued,
  // joins its threads. Idempotent.
  virtual void Stop() = 0;

  // Queues `op`; once stopped, calls op.after(UNAVAILABLE) at once.
  virtual void Submit(WriteOp op) = 0;

  // Runs `run` as a background op and waits for its commit (background
  // services and tests; never call it from an I/O thread or from an
  // executor thread).
  Status RunAndWait(std::function<Status(store::WriteTx&, TxContext&)> run);

  // Calls `fn` once every commit that a read snapshot taken before this call
  // could see is durable: with OK, or with UNAVAILABLE if that can no longer
  // be (the store's fsync failed). A read answers through it, so no client
  // is shown data a crash could still take back. At once (on this thread)
  // unless the store syncs commits apart (StoreTraits::pipelined_sync);
  // then possibly later, on an executor thread.
  virtual void WhenDurable(std::function<void(Status)> fn) { fn(Status::Ok()); }

  // Runs at most `ops` ops at once (at least one) from now on, of the
  // transactions the store lets it run together; ops beyond wait queued. A
  // PooledExecutor's share of a database other nodes write too
  // (services/write_share.h). A GroupCommitter runs one at a time anyway.
  virtual void LimitConcurrency(size_t ops) { (void)ops; }
  // Transactions it runs at once at most now (LimitConcurrency's): each on
  // a connection of its own.
  virtual size_t Concurrency() const { return 1; }

  // How many requests' ops (not background ones) were submitted so far: a
  // duty compares two readings to learn whether requests came in between (a
  // bulk operation then yields to them: services/operation_runner.h).
  uint64_t requests_submitted() const {
    return requests_submitted_.load(std::memory_order_relaxed);
  }

 protected:
  // Every Submit() calls it first.
  void CountSubmitted(const WriteOp& op) {
    if (!op.background) requests_submitted_.fetch_add(1, std::memory_order_relaxed);
  }

  // One op of a transaction several ops share (group commit, a hand-over),
  // run in a savepoint of its own, with a context of its own at `now` that
  // carries the transaction's snapshot (`tx_ctx`: what the hooks took once
  // for it). What the hooks write goes in that savepoint: it commits, or
  // rolls back, with the change that caused it. When the op succeeded and
  // its savepoint was released, what it made claimable and claimed is added
  // to `fresh` and `claimed`, and its effects to `tx_ctx`'s.
  struct SavepointRun {
    Status result;     // the op's answer; the savepoint's error if none was set
    Status end;        // releasing or rolling back the savepoint; not OK: the
                       // transaction's state is unknown
    bool ran = false;  // the savepoint was set and the op ran
  };
  SavepointRun RunInSavepoint(store::WriteTx& tx, WriteOp& op, TxContext& tx_ctx, Instant now,
                              Random& random, std::map<std::string, long long>& fresh,
                              std::map<std::string, long long>& claimed) const;

  std::vector<WriteHook*> hooks_;
  HandOver hand_over_;
  std::optional<std::string> node_id_;
  size_t max_queues_ = ServerLimits{}.max_queues;
  std::atomic<uint64_t> requests_submitted_{0};
};

// After a hand-over: the new jobs (`fresh`, by queue) that the claims it
// woke took (`claimed`) leave `became_claimable`, so that nobody is woken
// for them after the commit; the others still wake parked claims then.
void ForgetHandedOver(std::map<std::string, long long>& became_claimable,
                      const std::map<std::string, long long>& fresh,
                      const std::map<std::string, long long>& claimed);

struct WriteExecutorOptions {
  // GroupCommitter: the most ops one transaction takes.
  size_t max_batch = 2048;
  // PooledExecutor: tries in all for an op the store keeps aborting, and the
  // first pause between two (doubled after each, jittered, at most 32x).
  int max_attempts = 8;
  std::chrono::microseconds abort_backoff{1000};
};

// The executor `store.traits().write_model` asks for. `store`, `clock` and
// `random` must outlive it.
std::unique_ptr<WriteExecutor> MakeWriteExecutor(store::Store& store, const Clock& clock,
                                                 Random& random, WriteExecutorOptions options,
                                                 WriteExecutor::EffectsSink recorded,
                                                 WriteExecutor::EffectsSink answered);

}  // namespace redrive::engine
