// The auto-redrive duty (core/autoredrive.h): on the node leading
// `autoredrive`, steps every queue's policy once per pass, each in its own
// write transaction.
//
// A step, in one transaction: lock the policy's row (GetAutoredrive in a
// write transaction); observe the current batch (GetJobs of its ids:
// completed, dead again with the policy's fingerprint, dead otherwise or
// gone, still running) and count the eligible jobs (dead, of the class,
// auto-revived fewer than max_revivals_per_job times: CountSelectedJobs);
// call core's StepAutoredrive; redrive what it decided through the engine's
// normal path (ops::ApplyToLoadedBatch with event::Retry, source
// "autoredrive", budget reset: history, metrics, webhooks, live events as
// any redrive) and count each job's revival (CountAutoRevivals); write the
// state (UpdateAutoredriveState: the policy's own fields are never
// written, so an operator's edit is never undone); and, when the phase
// changed, write an audit entry (actor "autoredrive", action
// "dlq.autoredrive") and emit the webhook dlq.autoredrive. A policy cooling
// before its time costs one read and writes nothing.
//
// Bounded: at most kMaxAutoredrivePoliciesPerPass policies per pass, at
// most kMaxAutoredriveChunk jobs per step. The pass runs again a second
// later while any policy is enabled or not idle.
#pragma once

#include <string>

#include "engine/committer.h"
#include "engine/services/duties.h"
#include "engine/services/service.h"
#include "engine/tx_context.h"
#include "store/store.h"

namespace redrive::engine {

inline constexpr int kMaxAutoredrivePoliciesPerPass = 100;

class AutoredriveRunner final : public Service {
 public:
  AutoredriveRunner(Committer& committer, store::Store& store)
      : committer_(committer), store_(store) {}
  const char* name() const override { return duty::kAutoredrive; }
  const char* duty() const override { return duty::kAutoredrive; }
  ServiceRun RunOnce(Instant now) override;

 private:
  Committer& committer_;
  store::Store& store_;
};

namespace autoredrive_ops {

// The dead jobs `p` may revive (at most `limit` of them when selecting).
store::JobSelection EligibleSelection(const AutoredrivePolicy& p, int limit);

// One step of the queue's policy at `now` (see above): how many jobs it
// redrove. Nothing when the queue has no policy.
Result<int> Step(store::WriteTx& tx, TxContext& ctx, const std::string& queue_name, Instant now);

}  // namespace autoredrive_ops

}  // namespace redrive::engine
