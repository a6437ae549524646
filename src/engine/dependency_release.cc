#include "engine/dependency_release.h"

#include <vector>

#include "engine/webhooks/subscriptions.h"

namespace redrive::engine::ops {

namespace {

bool IsFailure(Outcome o) {
  return o == Outcome::kFailedDeadlettered || o == Outcome::kLeaseLostDeadlettered ||
         o == Outcome::kDeadlineDeadlettered || o == Outcome::kLeaseLostQuarantined;
}

bool WantsWorkflowEvents(const TxContext& ctx) {
  return ctx.subscriptions != nullptr &&
         (ctx.subscriptions->Wants(WorkflowWebhookEventName(WorkflowOutcome::kCompleted)) ||
          ctx.subscriptions->Wants(WorkflowWebhookEventName(WorkflowOutcome::kFailed)));
}

// Unblocks the dependents of `completed` whose condition now holds. Returns
// whether any dependent was still blocked before (then the workflow cannot
// have completed).
Result<bool> ReleaseDependents(store::WriteTx& tx, TxContext& ctx, const Job& completed) {
  REDRIVE_ASSIGN_OR_RETURN(long long edges, tx.MarkDependencyMet(completed.id));
  if (edges == 0) return false;  // nothing waits for it
  REDRIVE_ASSIGN_OR_RETURN(std::vector<store::BlockedDependent> dependents,
                           tx.SelectBlockedDependents(completed.id));
  if (dependents.empty()) return false;
  const Event unblock = event::Unblock{completed.id};
  std::vector<Change> changes;
  for (const store::BlockedDependent& d : dependents) {
    if (!ReadyOnceADependencyCompleted(d.mode, d.all_met)) continue;
    REDRIVE_ASSIGN_OR_RETURN(Change c, ctx.Apply(d.job, unblock));
    changes.push_back(std::move(c));
  }
  if (changes.empty()) return true;
  // The dependents are locked: every guard holds (a refusal is a store error).
  REDRIVE_ASSIGN_OR_RETURN(std::vector<bool> applied, tx.ApplyChanges(changes));
  for (size_t i = 0; i < changes.size(); ++i) {
    if (!applied[i]) return GuardFailed(changes[i]);
    ctx.Track(changes[i].after);
    REDRIVE_RETURN_IF_ERROR(
        ctx.Wrote(tx, JobWrite{changes[i].outcome, changes[i].after, &unblock}));
  }
  return true;
}

// Tells the hooks when `job`'s workflow, if any, reads `want` now.
Status NoteWorkflow(store::WriteTx& tx, TxContext& ctx, const Job& job, WorkflowOutcome want) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<WorkflowMember> member, tx.GetWorkflowMember(job.id));
  if (!member) return Status::Ok();
  REDRIVE_ASSIGN_OR_RETURN(WorkflowView view, tx.GetWorkflow(member->workflow_id));
  const WorkflowStatus status = view.status();
  if (want == WorkflowOutcome::kCompleted && status != WorkflowStatus::kCompleted) {
    return Status::Ok();
  }
  // Failed as of this job: the first of its jobs to fail (a later one finds
  // the workflow failed already).
  if (want == WorkflowOutcome::kFailed &&
      (status != WorkflowStatus::kFailed || FailedJobs(view.counts) != 1)) {
    return Status::Ok();
  }
  return ctx.Wrote(tx, WorkflowWrite{want, view});
}

}  // namespace

Status AfterJobWrite(store::WriteTx& tx, TxContext& ctx, const JobWrite& write) {
  if (write.outcome == Outcome::kCompleted) {
    REDRIVE_ASSIGN_OR_RETURN(bool had_blocked, ReleaseDependents(tx, ctx, write.job));
    if (had_blocked || !WantsWorkflowEvents(ctx)) return Status::Ok();
    return NoteWorkflow(tx, ctx, write.job, WorkflowOutcome::kCompleted);
  }
  if (IsFailure(write.outcome) && WantsWorkflowEvents(ctx)) {
    return NoteWorkflow(tx, ctx, write.job, WorkflowOutcome::kFailed);
  }
  return Status::Ok();
}

Result<bool> DependenciesMet(store::ReadTx& tx, const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<store::DependencyState> state,
                           tx.GetDependencyState(job_id));
  if (!state) return true;
  return DecideReadiness(state->mode, state->statuses) == Readiness::kReady;
}

}  // namespace redrive::engine::ops
