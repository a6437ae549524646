// Group commit (the WriteExecutor of kGroupCommit stores: SQLite): one thread
// runs the ops of every request that arrived together in ONE store
// transaction, commits it (one fsync), and only then answers each request.
// Each op runs in its own savepoint, so an op that fails is undone alone and
// the others still commit. Ops are never re-run: with one writer there is no
// race to lose (an ABORTED op is answered like any other error).
//
// Requests first, duties apart: a background op (WriteOp::background, a
// duty's RunAndWait) never shares a transaction with requests' ops
// (TakeGroup), so a request is not held up by a duty's batch that happened
// to join its transaction (a bulk operation's 500 jobs take ~16 ms). When
// both wait, groups alternate: a background op waits for at most one group
// of requests, so duties are never starved under load.
//
// Pipelined sync (a store whose traits say pipelined_sync: SQLite by
// default): the committer thread commits a batch without waiting for the
// disk (WriteTx::CommitWithoutSync) and hands it to the syncer thread, then
// runs the next batch. The syncer takes every batch handed over since its
// last round, makes them durable with one Store::SyncCommits() and only then
// answers them, in commit order. So batch N+1 executes while batch N is
// fsync'd, and no answer leaves before the bytes of its commit are on disk.
// Reads wait the same way (WhenDurable): a read is answered only once every
// commit its snapshot could see is durable.
//
// Hand-over (SetHandOver): after a group of requests' ops ran, and before
// the commit, the jobs they made claimable are offered to the claims parked
// on their queues. The woken claims submit their ops at once, and these
// run in the same transaction, so a job enqueued into a waiting worker's
// queue is claimed by the commit that creates it: one fsync between the
// enqueue and the worker's answer instead of two. The new jobs those
// claims took leave the batch's effects, so `answered` wakes no one for
// them; the others still wake parked claims (and other nodes) after the
// commit, as every new job did before. Not in a duty's batch; a duty owed
// its turn waits for this one transaction, as for any group of requests.
//
// Thread-safety: Submit() and WhenDurable() may be called from any thread.
// Ops and hooks run on the committer thread, one at a time; sinks and
// `after` callbacks on the committer thread, or with pipelined sync on the
// syncer thread, one at a time and in commit order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/random.h"
#include "engine/write_executor.h"
#include "store/store.h"

namespace redrive::engine {

// Moves the next transaction's ops from `queue` into `group`, each kind in
// its order: the queued requests' ops (up to `max`), leaving background ops
// queued; or the queued background ops (up to `max`) when no request waits
// or when the last group left background ops waiting (`background_owed`,
// which it updates).
void TakeGroup(std::deque<WriteOp>& queue, size_t max, bool& background_owed,
               std::deque<WriteOp>& group);

class GroupCommitter final : public WriteExecutor {
 public:
  // `recorded` and `answered` get the merged effects of the ops a batch
  // committed and the batch size. `answered` runs after every op of the
  // batch is answered: a long-poll claim of this batch that found nothing
  // parks in its answer, before the batch's new jobs wake waiters.
  GroupCommitter(store::Store& store, const Clock& clock, Random& random, size_t max_batch,
                 EffectsSink recorded, EffectsSink answered);
  ~GroupCommitter() override;  // Stop()s

  void Start() override;
  void Stop() override;
  void Submit(WriteOp op) override;
  void WhenDurable(std::function<void(Status)> fn) override;

 private:
  // A batch whose transaction ended, waiting to be answered.
  struct Committed {
    std::deque<WriteOp> ops;
    std::vector<Status> results;  // each op's run
    TxEffects effects;
    Status commit_status;  // the commit's; UNAVAILABLE if it failed
  };
  struct DurableWait {
    uint64_t mark;  // Store::CommitMark() when asked
    std::function<void(Status)> fn;
  };

  // A transaction being filled: Begin, Execute (one or more groups), End.
  struct OpenBatch {
    std::unique_ptr<store::WriteTx> tx;  // null: BeginWrite or a hook failed
    TxContext ctx;
    Committed out;    // the ops run so far, their results
    bool background;  // the kind of its ops (TakeGroup never mixes them)
    // Of the ops run since the last hand-over: what they made claimable,
    // and what they claimed (TxEffects' fields of those names).
    std::map<std::string, long long> fresh;
    std::map<std::string, long long> claimed;
  };

  void Loop();
  OpenBatch Begin();
  // Moves `group`'s ops into `batch` and runs each in a savepoint.
  void Execute(OpenBatch& batch, std::deque<WriteOp>& group);
  // Offers the jobs the last ops made claimable to parked claims, and runs
  // the claims it woke in `batch` (see the top of this file).
  void HandOver(OpenBatch& batch);
  // Pipelined: runs requests arriving while the syncer is busy in `batch`.
  void Coalesce(OpenBatch& batch);
  // Commits (or rolls back, after a failure) and returns what to answer.
  Committed End(OpenBatch& batch);
  // Answers a batch: `recorded`, each op's `after`, `answered`.
  void Answer(Committed& committed);
  void SyncLoop();

  store::Store& store_;
  const Clock& clock_;
  Random& random_;
  const size_t max_batch_;
  const bool pipelined_;  // store_.traits().pipelined_sync
  EffectsSink recorded_;
  EffectsSink answered_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WriteOp> queue_;
  bool background_owed_ = false;  // TakeGroup's
  bool accepting_ = false;
  bool stop_ = false;
  bool sync_in_flight_ = false;  // the syncer is in SyncCommits (Coalesce's cue)
  std::thread thread_;

  // The syncer's (pipelined_ only).
  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
  std::deque<Committed> committed_;         // handed over, not yet synced
  std::vector<DurableWait> durable_waits_;  // WhenDurable's, not yet covered
  uint64_t durable_mark_ = 0;               // the highest commit a sync covered
  bool syncing_ = false;                    // the syncer thread runs
  bool sync_stop_ = false;
  std::thread syncer_;
};

}  // namespace redrive::engine
