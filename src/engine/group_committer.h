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
// Thread-safety: Submit() may be called from any thread. Ops, hooks, sinks
// and `after` callbacks run on the committer thread, one at a time.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

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

 private:
  void Loop();
  void RunBatch(std::deque<WriteOp>& batch);

  store::Store& store_;
  const Clock& clock_;
  Random& random_;
  const size_t max_batch_;
  EffectsSink recorded_;
  EffectsSink answered_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WriteOp> queue_;
  bool background_owed_ = false;  // TakeGroup's
  bool accepting_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace redrive::engine
