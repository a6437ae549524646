// The worker registry: register, heartbeat, deregister (releasing held jobs).
#include "core/ids.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

void Engine::RegisterWorker(RegisterWorkerParams p, Callback<WorkerInfo> done) {
  impl_->Write<WorkerInfo>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<WorkerInfo> {
        WorkerInfo w;
        w.id = p.worker_id.value_or(NewUuidV7(ctx.now, ctx.random));
        if (p.worker_id) {
          REDRIVE_ASSIGN_OR_RETURN(auto existing, tx.LockWorker(*p.worker_id));
          if (existing) w.registered_at = existing->registered_at;
        }
        if (w.registered_at == Instant{}) w.registered_at = ctx.now;
        w.queue_name = p.queue_name;
        w.hostname = p.hostname;
        w.worker_type = p.worker_type;
        w.max_concurrency = p.max_concurrency;
        w.metadata_json = p.metadata_json;
        w.version = p.version;
        w.last_heartbeat_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.PutWorker(w));
        REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, WorkerWrite{WorkerOutcome::kRegistered, w}));
        return w;
      },
      std::move(done));
}

void Engine::WorkerHeartbeat(WorkerHeartbeatParams p, Callback<WorkerInfo> done) {
  impl_->Write<WorkerInfo>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<WorkerInfo> {
        REDRIVE_ASSIGN_OR_RETURN(auto w, tx.LockWorker(p.worker_id));
        if (!w) return Status::NotFound("worker " + p.worker_id + " not found");
        w->current_jobs = p.current_jobs;
        if (p.status) w->status = *p.status;
        if (p.metadata_json) w->metadata_json = *p.metadata_json;
        w->last_heartbeat_at = ctx.now;
        if (w->deregistered_at && !p.status) w->status = "healthy";
        w->deregistered_at.reset();
        REDRIVE_RETURN_IF_ERROR(tx.PutWorker(*w));
        return std::move(*w);
      },
      std::move(done));
}

void Engine::DeregisterWorker(std::string worker_id, StatusCallback done) {
  impl_->Write<bool>(
      [id = std::move(worker_id)](WriteTx& tx, TxContext& ctx) -> Result<bool> {
        REDRIVE_ASSIGN_OR_RETURN(auto w, tx.LockWorker(id));
        // Claims do not require registration, so release by holder id even
        // for a worker the registry does not know.
        REDRIVE_ASSIGN_OR_RETURN(auto held, tx.SelectHeldBy(id, 100000));
        if (!w && held.empty()) return Status::NotFound("worker " + id + " not found");
        for (const Job& job : held) {
          REDRIVE_RETURN_IF_ERROR(ops::ApplyToLoaded(tx, ctx, job, event::Release{id}).status());
        }
        if (w) {
          w->deregistered_at = ctx.now;
          w->current_jobs = 0;
          w->status = "offline";
          REDRIVE_RETURN_IF_ERROR(tx.PutWorker(*w));
          REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, WorkerWrite{WorkerOutcome::kDeregistered, *w}));
        }
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

// Workers are shown as they are now: one silent for three heartbeat
// intervals is offline whatever it last reported.
void Engine::GetWorker(std::string worker_id, Callback<WorkerInfo> done) {
  impl_->Read<WorkerInfo>(
      [id = std::move(worker_id), &clock = impl_->clock](ReadTx& tx) -> Result<WorkerInfo> {
        REDRIVE_ASSIGN_OR_RETURN(auto w, tx.GetWorker(id));
        if (!w) return Status::NotFound("worker " + id + " not found");
        w->status = EffectiveWorkerStatus(*w, clock.Now());
        return std::move(*w);
      },
      std::move(done));
}

void Engine::ListWorkers(ListWorkersParams p, Callback<std::vector<WorkerInfo>> done) {
  impl_->Read<std::vector<WorkerInfo>>(
      [&clock = impl_->clock, p](ReadTx& tx) -> Result<std::vector<WorkerInfo>> {
        REDRIVE_ASSIGN_OR_RETURN(auto workers, tx.ListWorkers(p.limit, p.offset));
        const Instant now = clock.Now();
        for (WorkerInfo& w : workers) w.status = EffectiveWorkerStatus(w, now);
        return workers;
      },
      std::move(done));
}

}  // namespace redrive::engine
