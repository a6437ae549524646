// The bulk-operation service (core/operation.h): runs every unfinished
// operation, one bounded batch (one transaction) at a time, on the node
// leading the `operations` duty.
//
// A batch, in one transaction: lock the operation's row (GetOperation in a
// write transaction), select at most `batch` of its jobs after its cursor in
// creation order (WriteTx::SelectJobsAfter), apply the action to each (a move is
// event::Move into the target queue, created if new) through the
// engine's normal path (ops::ApplyToLoadedBatch: core's Apply, the guarded
// write, its history entry, metrics, webhooks and live events; a purge
// deletes as DELETE /jobs/dlq/purge does), then write the operation with its
// cursor at the last job, its counts and its next batch's due time. The jobs
// and the progress commit together: a restart (or another node taking the
// duty over) resumes after the cursor and never handles a job twice. A
// cancel is a write of the row, so it takes effect at the next batch.
//
// Pace: with rate_per_second r a batch takes at most max(1, floor(r)) jobs
// (and the batch size), and the next is due k/r seconds after a batch of k.
// Without a rate the next batch is due at once (the pass reports more work),
// unless this node serves requests meanwhile: then the operation yields to
// them. Its batches take at most kYieldBatch jobs (a request that arrives
// while one runs waits less), and it pauses after each pass so that its
// batches hold the writer at most `yield_share` percent of the time (a pass
// whose batches ran for t is followed by a pause of t * (100 - share) /
// share). A pass that met no request runs full batches, back to back.
// Measured in docs/benchmarks.md (W5).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "engine/tx_context.h"
#include "store/store.h"

namespace redrive::engine {

class OperationRunner final : public Service {
 public:
  // `yield_share`: percent, 1..100 (100: never yields).
  OperationRunner(Committer& committer, store::Store& store, const Clock& clock, int batch,
                  int yield_share);
  const char* name() const override { return duty::kOperations; }
  const char* duty() const override { return duty::kOperations; }
  // One batch of each due operation (each in its own transaction).
  ServiceRun RunOnce(Instant now) override;

 private:
  // One batch of each due operation; `worked` adds the time its batches ran.
  ServiceRun RunPass(Instant now, int batch, Micros& worked);
  // While operations run back to back, how long a listing of the due ones
  // is reused (a new one waits at most this long for its first batch).
  static constexpr Micros kRelistEvery{250'000};
  Committer& committer_;
  store::Store& store_;
  const Clock& clock_;
  int batch_;
  int yield_share_;
  uint64_t requests_seen_ = 0;    // requests_submitted() when the last pass began
  std::vector<std::string> due_;  // the operations the last listing found due
  bool due_now_ = false;          // each ran in the last pass and is due again at once
  Instant listed_at_{};
};

namespace operation_ops {

// The store's selection of `rec` from its cursor on, `limit` jobs at most.
store::JobSelection SelectionOf(const store::OperationRecord& rec, int limit);

// One batch of the operation `id` at `now` (see above); what it changed.
// Nothing when it is finished or its next batch is not due yet.
struct BatchOutcome {
  long long handled = 0;  // jobs changed or counted failed
  bool more_now = false;  // still running, next batch due at once
};
Result<BatchOutcome> RunBatch(store::WriteTx& tx, TxContext& ctx, const std::string& id,
                              Instant now, int batch);

// Yielding to requests (see the top of this file): the jobs of a batch, and
// the pause after a pass whose batches ran for `worked` (none: no pause).
inline constexpr int kYieldBatch = 16;
int YieldingBatch(int batch, bool busy, int yield_share);
std::optional<Micros> YieldPause(Micros worked, int yield_share);

}  // namespace operation_ops

}  // namespace redrive::engine
