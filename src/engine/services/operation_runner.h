// The bulk-operation service (core/operation.h): runs every unfinished
// operation, one bounded batch (one transaction) at a time, on the node
// leading the `operations` duty.
//
// A batch, in one transaction: lock the operation's row (GetOperation in a
// write transaction), select at most `batch` of its jobs after its cursor in
// id order (WriteTx::SelectJobsAfter), apply the action to each (a move is
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
// Without a rate the next batch is due at once (the pass reports more work).
#pragma once

#include <memory>
#include <string>

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "engine/tx_context.h"
#include "store/store.h"

namespace redrive::engine {

class OperationRunner final : public Service {
 public:
  OperationRunner(Committer& committer, store::Store& store, int batch);
  const char* name() const override { return duty::kOperations; }
  const char* duty() const override { return duty::kOperations; }
  // One batch of each due operation (each in its own transaction).
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  store::Store& store_;
  int batch_;
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

}  // namespace operation_ops

}  // namespace redrive::engine
