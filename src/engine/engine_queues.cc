// Queue operations: views with counts, configuration, pause/resume, delete.
#include "engine/engine.h"
#include "engine/engine_impl.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

namespace {

Result<QueueView> ViewOf(ReadTx& tx, QueueConfig config) {
  QueueView v;
  REDRIVE_ASSIGN_OR_RETURN(v.counts, tx.CountJobs(config.queue_name));
  REDRIVE_ASSIGN_OR_RETURN(v.oldest_deadletter_at, tx.OldestDeadletterAt(config.queue_name));
  v.config = std::move(config);
  return v;
}

Status QueueNotFound(const std::string& name) {
  return Status::NotFound("queue " + name + " not found");
}

// The queue's row, created with defaults if absent and locked for a
// read-modify-write. Configuring, pausing and resuming a queue that has no
// jobs yet all create it: operators set a queue up (or hold it) before its
// first job arrives, and the three must agree on whether it exists.
Result<QueueConfig> LockOrCreateQueue(WriteTx& tx, const TxContext& ctx, const std::string& name) {
  REDRIVE_RETURN_IF_ERROR(tx.EnsureQueue(name, ctx.now, ctx.max_queues).status());
  REDRIVE_ASSIGN_OR_RETURN(std::optional<QueueConfig> locked, tx.LockQueue(name));
  if (!locked) return QueueNotFound(name);  // deleted between the two
  return std::move(*locked);
}

}  // namespace

Result<std::vector<QueueView>> ListQueueViews(ReadTx& tx) {
  REDRIVE_ASSIGN_OR_RETURN(auto configs, tx.ListQueues());
  std::vector<QueueView> out;
  out.reserve(configs.size());
  for (auto& c : configs) {
    REDRIVE_ASSIGN_OR_RETURN(auto v, ViewOf(tx, std::move(c)));
    out.push_back(std::move(v));
  }
  return out;
}

void Engine::ListQueues(Callback<std::vector<QueueView>> done) {
  impl_->Read<std::vector<QueueView>>(ListQueueViews, std::move(done));
}

void Engine::GetQueue(std::string name, Callback<QueueView> done) {
  impl_->Read<QueueView>(
      [name = std::move(name)](ReadTx& tx) -> Result<QueueView> {
        REDRIVE_ASSIGN_OR_RETURN(auto config, tx.GetQueue(name));
        if (!config) return QueueNotFound(name);
        return ViewOf(tx, std::move(*config));
      },
      std::move(done));
}

void Engine::QueueStats(std::string name, Callback<QueueStatsView> done) {
  impl_->Read<QueueStatsView>(
      [name = std::move(name), &clock = impl_->clock](ReadTx& tx) -> Result<QueueStatsView> {
        REDRIVE_ASSIGN_OR_RETURN(auto config, tx.GetQueue(name));
        if (!config) return QueueNotFound(name);
        QueueStatsView v;
        REDRIVE_ASSIGN_OR_RETURN(v.queue, ViewOf(tx, std::move(*config)));
        REDRIVE_ASSIGN_OR_RETURN(auto workers, tx.ListWorkers(kMaxListWorkersLimit, 0));
        v.now = clock.Now();
        for (const WorkerInfo& w : workers) {
          if (w.queue_name == name && EffectiveWorkerStatus(w, v.now) != "offline") {
            ++v.active_workers;
          }
        }
        REDRIVE_ASSIGN_OR_RETURN(v.last_day,
                                 tx.SumHourlyThroughput(name, FirstHourOfLastDay(v.now)));
        REDRIVE_ASSIGN_OR_RETURN(v.oldest_waiting_created_at, tx.OldestWaitingCreatedAt(name));
        return v;
      },
      std::move(done));
}

void Engine::ConfigureQueue(std::string name, QueueConfigPatch patch, Callback<QueueConfig> done) {
  impl_->Write<QueueConfig>(
      [name = std::move(name), patch = std::move(patch)](WriteTx& tx,
                                                         TxContext& ctx) -> Result<QueueConfig> {
        REDRIVE_ASSIGN_OR_RETURN(QueueConfig c, LockOrCreateQueue(tx, ctx, name));
        const bool was_claimable = c.enabled && !c.paused;
        if (patch.max_retries) c.max_retries = *patch.max_retries;
        if (patch.default_timeout) c.default_timeout = *patch.default_timeout;
        if (patch.enabled) c.enabled = *patch.enabled;
        if (patch.backoff) c.backoff = *patch.backoff;
        if (patch.crash_limit) c.crash_limit = *patch.crash_limit;
        if (patch.max_snoozes) c.max_snoozes = *patch.max_snoozes;
        if (patch.retention_completed) c.retention.completed = *patch.retention_completed;
        if (patch.retention_deadletter) c.retention.deadletter = *patch.retention_deadletter;
        if (patch.retention_cancelled) c.retention.cancelled = *patch.retention_cancelled;
        c.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.PutQueue(c));
        if (!was_claimable && c.enabled && !c.paused) ctx.effects.wake_all[name] = true;
        return c;
      },
      std::move(done));
}

void Engine::PauseQueue(std::string name, std::optional<std::string> reason,
                        Callback<QueueConfig> done) {
  impl_->Write<QueueConfig>(
      [name = std::move(name), reason = std::move(reason)](WriteTx& tx,
                                                           TxContext& ctx) -> Result<QueueConfig> {
        REDRIVE_ASSIGN_OR_RETURN(QueueConfig c, LockOrCreateQueue(tx, ctx, name));
        const bool was_paused = c.paused;
        c.paused = true;
        c.paused_reason = reason;
        c.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.PutQueue(c));
        if (!was_paused) {
          REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, QueueWrite{QueueOutcome::kPaused, name, reason}));
        }
        return c;
      },
      std::move(done));
}

void Engine::ResumeQueue(std::string name, Callback<QueueConfig> done) {
  impl_->Write<QueueConfig>(
      [name = std::move(name)](WriteTx& tx, TxContext& ctx) -> Result<QueueConfig> {
        REDRIVE_ASSIGN_OR_RETURN(QueueConfig c, LockOrCreateQueue(tx, ctx, name));
        const bool was_paused = c.paused;
        c.paused = false;
        c.paused_reason.reset();
        c.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.PutQueue(c));
        if (was_paused) {
          REDRIVE_RETURN_IF_ERROR(
              ctx.Wrote(tx, QueueWrite{QueueOutcome::kResumed, name, std::nullopt}));
        }
        ctx.effects.wake_all[name] = true;  // parked claims may now get jobs
        return c;
      },
      std::move(done));
}

void Engine::DeleteQueue(std::string name, bool delete_jobs, StatusCallback done) {
  impl_->Write<bool>(
      [name = std::move(name), delete_jobs](WriteTx& tx, TxContext&) -> Result<bool> {
        if (!delete_jobs) {
          // Deleting only the config of a queue that still has live jobs would
          // leave them orphaned with defaults; refuse unless told to delete them.
          REDRIVE_ASSIGN_OR_RETURN(StatusCounts counts, tx.CountJobs(name));
          if (counts.total() > 0) {
            return Status::Conflict("queue " + name +
                                    " has jobs; pass delete_jobs=true to delete them too");
          }
        }
        REDRIVE_RETURN_IF_ERROR(tx.DeleteQueue(name, delete_jobs));
        // Its auto-redrive policy goes with it.
        Status policy = tx.DeleteAutoredrive(name);
        if (!policy.ok() && policy.code() != ErrorCode::kNotFound) return policy;
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

}  // namespace redrive::engine
