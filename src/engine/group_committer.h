// Group commit (the WriteExecutor of kGroupCommit stores: SQLite): one thread
// runs the ops of every request that arrived together in ONE store
// transaction, commits it (one fsync), and only then answers each request.
// Each op runs in its own savepoint, so an op that fails is undone alone and
// the others still commit. Ops are never re-run: with one writer there is no
// race to lose (an ABORTED op is answered like any other error).
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
  bool accepting_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace redrive::engine
