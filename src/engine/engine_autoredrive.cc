// Auto-redrive policies (core/autoredrive.h): read, create or replace,
// delete. Their steps run in services/autoredrive_runner.h.
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/services/autoredrive_runner.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

namespace {

Result<AutoredriveView> ViewOf(ReadTx& tx, store::AutoredriveRecord rec) {
  AutoredriveView v;
  REDRIVE_ASSIGN_OR_RETURN(v.eligible,
                           tx.CountSelectedJobs(autoredrive_ops::EligibleSelection(rec.policy, 0)));
  v.policy = std::move(rec.policy);
  v.state = std::move(rec.state);
  return v;
}

Status NoPolicy(const std::string& queue_name) {
  return Status::NotFound("queue " + queue_name + " has no auto-redrive policy");
}

// The operator's change restarts the state machine when it changes what
// runs: the switch, or the class.
bool Restarts(const AutoredrivePolicy& before, const AutoredrivePolicy& after) {
  return before.enabled != after.enabled || before.fingerprint != after.fingerprint ||
         before.reason != after.reason;
}

}  // namespace

void Engine::GetAutoredrive(std::string queue_name, Callback<AutoredriveView> done) {
  impl_->Read<AutoredriveView>(
      [queue_name = std::move(queue_name)](ReadTx& tx) -> Result<AutoredriveView> {
        REDRIVE_ASSIGN_OR_RETURN(auto rec, tx.GetAutoredrive(queue_name));
        if (!rec) return NoPolicy(queue_name);
        return ViewOf(tx, std::move(*rec));
      },
      std::move(done));
}

void Engine::ListAutoredrive(Callback<std::vector<AutoredriveView>> done) {
  impl_->Read<std::vector<AutoredriveView>>(
      [](ReadTx& tx) -> Result<std::vector<AutoredriveView>> {
        REDRIVE_ASSIGN_OR_RETURN(auto recs, tx.ListAutoredrive());
        std::vector<AutoredriveView> out;
        out.reserve(recs.size());
        for (auto& rec : recs) {
          REDRIVE_ASSIGN_OR_RETURN(AutoredriveView v, ViewOf(tx, std::move(rec)));
          out.push_back(std::move(v));
        }
        return out;
      },
      std::move(done));
}

void Engine::PutAutoredrive(AutoredrivePolicy policy, Callback<PutAutoredriveResult> done) {
  impl_->Write<PutAutoredriveResult>(
      [policy = std::move(policy)](WriteTx& tx, TxContext& ctx) -> Result<PutAutoredriveResult> {
        REDRIVE_RETURN_IF_ERROR(ValidateAutoredrivePolicy(policy));
        REDRIVE_RETURN_IF_ERROR(
            tx.EnsureQueue(policy.queue_name, ctx.now, ctx.max_queues).status());
        REDRIVE_ASSIGN_OR_RETURN(auto existing, tx.GetAutoredrive(policy.queue_name));  // locked
        store::AutoredriveRecord rec{policy, {}};
        rec.policy.updated_at = ctx.now;
        PutAutoredriveResult r;
        if (!existing) {
          rec.policy.created_at = ctx.now;
          rec.state = InitialAutoredriveState(rec.policy, ctx.now);
          REDRIVE_RETURN_IF_ERROR(tx.InsertAutoredrive(rec));
          r.created = true;
        } else {
          rec.policy.created_at = existing->policy.created_at;
          REDRIVE_RETURN_IF_ERROR(tx.UpdateAutoredrivePolicy(rec.policy));
          rec.state = existing->state;
          if (Restarts(existing->policy, rec.policy)) {
            AutoredriveState fresh = InitialAutoredriveState(rec.policy, ctx.now);
            // The counters and the last decision are history: they stay.
            fresh.total_revived = rec.state.total_revived;
            fresh.backoffs = rec.state.backoffs;
            fresh.last_decision = rec.state.last_decision;
            fresh.last_reason = rec.state.last_reason;
            fresh.last_decision_at = rec.state.last_decision_at;
            rec.state = std::move(fresh);
            REDRIVE_RETURN_IF_ERROR(tx.UpdateAutoredriveState(policy.queue_name, rec.state));
          } else if (rec.state.phase == AutoredrivePhase::kCooling &&
                     existing->policy.cooldown != rec.policy.cooldown) {
            // A new cool-down applies to the cooling under way, from now.
            rec.state.current_cooldown = rec.policy.cooldown;
            rec.state.next_check_at = ctx.now + rec.policy.cooldown;
            REDRIVE_RETURN_IF_ERROR(tx.UpdateAutoredriveState(policy.queue_name, rec.state));
          }
        }
        REDRIVE_ASSIGN_OR_RETURN(r.view, ViewOf(tx, std::move(rec)));
        return r;
      },
      [impl = impl_.get(), done = std::move(done)](Result<PutAutoredriveResult> r) {
        // The duty picks an enabled policy up at its next pass.
        if (r.ok()) impl->loop.Nudge(impl->clock.Now());
        done(std::move(r));
      });
}

void Engine::DeleteAutoredrive(std::string queue_name, StatusCallback done) {
  impl_->Write<bool>(
      [queue_name = std::move(queue_name)](WriteTx& tx, TxContext&) -> Result<bool> {
        REDRIVE_RETURN_IF_ERROR(tx.DeleteAutoredrive(queue_name));
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

}  // namespace redrive::engine
