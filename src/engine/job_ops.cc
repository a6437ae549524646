#include "engine/job_ops.h"

#include "core/ids.h"
#include "core/new_job.h"

namespace redrive::engine::ops {

Result<Change> ApplyToLoaded(store::WriteTx& tx, TxContext& ctx, const Job& job,
                             const Event& event) {
  auto change = Apply(job, event, ctx.now, ctx.random);
  if (!change.ok()) return change;
  REDRIVE_RETURN_IF_ERROR(tx.ApplyChange(*change));
  ctx.Track(change->after);
  REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, JobWrite{change->outcome, change->after, &event}));
  return change;
}

Result<Change> ApplyToJob(store::WriteTx& tx, TxContext& ctx, const std::string& id,
                          const Event& event) {
  REDRIVE_ASSIGN_OR_RETURN(Job job, tx.GetJob(id));
  return ApplyToLoaded(tx, ctx, job, event);
}

Result<EnqueueResult> Enqueue(store::WriteTx& tx, TxContext& ctx, const EnqueueParams& p) {
  if (p.expires_at && *p.expires_at <= ctx.now) {
    return Status::Validation("expires_at", "expires_at must be in the future");
  }
  if (p.idempotency_key) {
    // A replay answers with the existing job whatever has happened to the
    // queue since (disabled, deleted): the key identifies the job, not a try.
    REDRIVE_ASSIGN_OR_RETURN(auto existing, tx.FindIdempotencyKey(*p.idempotency_key));
    if (existing) return EnqueueResult{*existing, false};
  }
  auto cached = ctx.queues.find(p.queue_name);
  if (cached == ctx.queues.end()) {
    REDRIVE_ASSIGN_OR_RETURN(QueueConfig config, tx.EnsureQueue(p.queue_name, ctx.now));
    cached = ctx.queues.emplace(p.queue_name, std::move(config)).first;
  }
  const QueueConfig& queue = cached->second;
  if (!queue.enabled) return Status::Conflict("queue " + p.queue_name + " is disabled");

  auto [job, created] = MakeNewJob(p, queue, ctx.now, ctx.random);
  REDRIVE_ASSIGN_OR_RETURN(store::InsertOutcome out, tx.InsertJob(job, created));
  if (out.created) {
    ctx.Track(job);
    REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, JobWrite{Outcome::kCreated, job, nullptr}));
  }
  return EnqueueResult{out.id, out.created};
}

Result<std::vector<Job>> Claim(store::WriteTx& tx, TxContext& ctx, const std::string& queue,
                               const std::string& worker_id, int limit,
                               std::chrono::seconds lease_duration) {
  std::vector<Job> claimed;
  REDRIVE_ASSIGN_OR_RETURN(auto config, tx.GetQueue(queue));
  if (!config || config->paused || !config->enabled) return claimed;
  // A worker that deregistered gets nothing, not even from a long-poll it
  // left parked while shutting down: the job would sit leased to a process
  // that is gone until the lease ran out, and that would cost it a retry.
  REDRIVE_ASSIGN_OR_RETURN(auto worker, tx.GetWorker(worker_id));
  if (worker && worker->deregistered_at) return claimed;

  // Promote what became due since the scheduler last ran, so a claim never
  // waits for the sweep to see a due retry.
  REDRIVE_ASSIGN_OR_RETURN(auto due, tx.SelectDueScheduled(queue, ctx.now, limit));
  long long promoted = 0;
  for (const Job& job : due) {
    auto change = ApplyToLoaded(tx, ctx, job, event::Promote{});
    if (change.ok()) {
      ++promoted;
    } else if (change.status().code() != ErrorCode::kConflict) {
      return change.status();
    }
  }

  REDRIVE_ASSIGN_OR_RETURN(auto candidates, tx.SelectClaimable(queue, ctx.now, limit));
  claimed.reserve(candidates.size());
  for (const Job& job : candidates) {
    event::Claim claim{worker_id, NewUuidV7(ctx.now, ctx.random), lease_duration};
    auto change = ApplyToLoaded(tx, ctx, job, claim);
    if (!change.ok()) {
      // Another node took it first (PostgreSQL) or it just expired: skip it.
      if (change.status().code() == ErrorCode::kConflict) continue;
      return change.status();
    }
    claimed.push_back(std::move(change->after));
  }
  // Promoted jobs this claim did not take may wake other waiters.
  const long long left = promoted - static_cast<long long>(claimed.size());
  if (left > 0) {
    ctx.effects.became_claimable[queue] = left;
  } else {
    ctx.effects.became_claimable.erase(queue);
  }
  return claimed;
}

Result<AckItemResult> ApplyAck(store::WriteTx& tx, TxContext& ctx, const std::string& worker_id,
                               const Ack& ack) {
  AckItemResult r;
  r.job_id = ack.job_id;
  Result<Change> change = Status::Internal("unreachable");
  if (ack.error) {
    change =
        ApplyToJob(tx, ctx, ack.job_id,
                   event::Fail{worker_id, ack.lease_id, *ack.error, ack.no_retry, ack.retry_after});
  } else {
    change =
        ApplyToJob(tx, ctx, ack.job_id, event::Complete{worker_id, ack.lease_id, ack.result_json});
  }
  if (!change.ok()) {
    const ErrorCode code = change.status().code();
    if (code != ErrorCode::kLeaseExpired && code != ErrorCode::kConflict &&
        code != ErrorCode::kNotFound) {
      return change.status();
    }
    r.status = change.status();
    return r;
  }
  r.new_status = change->after.status;
  if (ack.error) r.will_retry = change->after.status != JobStatus::kDeadletter;
  return r;
}

}  // namespace redrive::engine::ops
