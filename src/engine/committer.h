// Group commit: one thread runs the writes of every request that arrived
// together in ONE store transaction, commits it (one fsync), and only then
// answers each request. Each request runs in its own savepoint, so a request
// that fails is undone alone and the others still commit.
//
// Effects plug in at two points: write hooks (write_hook.h) see each write
// of a request inside its savepoint (metric events, the webhook outbox), and
// the effects sinks get the merged effects of the committed batch.
//
// Thread-safety: Submit() may be called from any thread. Ops run on the
// committer thread; `after` callbacks run there too, after the commit.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/random.h"
#include "core/status.h"
#include "engine/tx_context.h"
#include "engine/write_hook.h"
#include "store/store.h"

namespace redrive::engine {

struct WriteOp {
  // Runs inside the group transaction. A non-OK result rolls back this op's
  // savepoint and is passed to `after` as is.
  std::function<Status(store::WriteTx&, TxContext&)> run;
  // Called once: with run's error, or with the commit's status.
  std::function<void(Status)> after;
};

class Committer {
 public:
  // Called on the committer thread after each successful commit, with the
  // merged effects of the requests that succeeded and the batch size:
  // `recorded` before any request of the batch is answered (metrics, so an
  // answered client sees the counters it moved), `answered` after all are
  // (wake-ups: a long-poll claim of this batch that found nothing parks in its
  // answer callback, and must be parked before the batch's new jobs wake
  // waiters).
  using EffectsSink = std::function<void(const TxEffects&, size_t batch_size)>;

  Committer(store::Store& store, const Clock& clock, Random& random, size_t max_batch,
            EffectsSink recorded, EffectsSink answered);
  ~Committer();  // Stop()s

  // Adds a hook called for every write of every request, in the order
  // added. `hook` must outlive the committer. Call before Start().
  void AddHook(WriteHook* hook) { hooks_.push_back(hook); }

  void Start();
  // Refuses new ops (SERVICE_UNAVAILABLE), runs and commits what is queued, joins.
  void Stop();

  // Queues `op`; if the committer is stopped, calls op.after(UNAVAILABLE) at once.
  void Submit(WriteOp op);

  // Runs `run` in the next group commit and waits for the commit (for
  // background services and tests; never call it from an I/O thread).
  Status RunAndWait(std::function<Status(store::WriteTx&, TxContext&)> run);

 private:
  void Loop();
  void RunBatch(std::deque<WriteOp>& batch);

  store::Store& store_;
  const Clock& clock_;
  Random& random_;
  const size_t max_batch_;
  EffectsSink recorded_;
  EffectsSink answered_;
  std::vector<WriteHook*> hooks_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WriteOp> queue_;
  bool accepting_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace redrive::engine
