#include "engine/job_ops.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "core/ids.h"
#include "core/new_job.h"
#include "engine/webhooks/webhook_ops.h"

namespace redrive::engine::ops {

Result<Change> ApplyToLoaded(store::WriteTx& tx, TxContext& ctx, const Job& job,
                             const Event& event) {
  auto change = ctx.Apply(job, event);
  if (!change.ok()) return change;
  REDRIVE_RETURN_IF_ERROR(tx.ApplyChange(*change));
  ctx.Track(change->after);
  REDRIVE_RETURN_IF_ERROR(
      ctx.Wrote(tx, JobWrite{change->outcome, change->after, &event, change->before.status}));
  return change;
}

Result<std::vector<Change>> ApplyToLoadedBatch(store::WriteTx& tx, TxContext& ctx,
                                               const std::vector<Job>& jobs,
                                               const std::function<Event(const Job&)>& event_for) {
  std::vector<Event> events;
  std::vector<Change> changes;
  events.reserve(jobs.size());  // JobWrite points at them: no reallocation
  changes.reserve(jobs.size());
  for (const Job& job : jobs) {
    Event event = event_for(job);
    auto change = ctx.Apply(job, event);
    if (!change.ok()) {
      if (change.status().code() == ErrorCode::kConflict) continue;
      return change.status();
    }
    events.push_back(std::move(event));
    changes.push_back(std::move(*change));
  }
  REDRIVE_ASSIGN_OR_RETURN(std::vector<bool> applied, tx.ApplyChanges(changes));
  std::vector<Change> written;
  written.reserve(changes.size());
  for (size_t i = 0; i < changes.size(); ++i) {
    if (!applied[i]) continue;
    ctx.Track(changes[i].after);
    REDRIVE_RETURN_IF_ERROR(ctx.Wrote(
        tx, JobWrite{changes[i].outcome, changes[i].after, &events[i], changes[i].before.status}));
    written.push_back(std::move(changes[i]));
  }
  return written;
}

Status EnsureTargetQueue(store::WriteTx& tx, TxContext& ctx,
                         const std::optional<std::string>& target) {
  if (!target) return Status::Ok();
  auto cached = ctx.queues.find(*target);
  if (cached == ctx.queues.end()) {
    REDRIVE_ASSIGN_OR_RETURN(QueueConfig config, tx.EnsureQueue(*target, ctx.now, ctx.max_queues));
    cached = ctx.queues.emplace(*target, std::move(config)).first;
  }
  if (!cached->second.enabled) {
    return Status::Conflict("target_queue " + *target + " is disabled");
  }
  return Status::Ok();
}

Result<Change> ApplyToJob(store::WriteTx& tx, TxContext& ctx, const std::string& id,
                          const Event& event, const QueueScope& scope) {
  REDRIVE_ASSIGN_OR_RETURN(Job job, tx.GetJob(id));
  REDRIVE_RETURN_IF_ERROR(scope.Check(job.queue_name));
  return ApplyToLoaded(tx, ctx, job, event);
}

Result<std::vector<Result<EnqueueResult>>> EnqueueBatch(store::WriteTx& tx, TxContext& ctx,
                                                        std::span<const EnqueueParams> items,
                                                        const std::vector<bool>& blocked) {
  std::vector<Result<EnqueueResult>> out(items.size(), Status::Internal("not enqueued"));
  // A replay answers with the existing job whatever has happened to the
  // queue since (disabled, deleted): the key identifies the job, not a try.
  std::vector<std::string> keys;
  for (const EnqueueParams& p : items) {
    if (p.idempotency_key) keys.push_back(*p.idempotency_key);
  }
  std::map<std::string, std::string> existing;
  if (!keys.empty()) {
    REDRIVE_ASSIGN_OR_RETURN(existing, tx.FindIdempotencyKeys(keys));
  }

  std::vector<NewJob> made;
  std::vector<size_t> made_for;  // made[k] is items[made_for[k]]
  made.reserve(items.size());
  made_for.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const EnqueueParams& p = items[i];
    if (p.expires_at && *p.expires_at <= ctx.now) {
      out[i] = Status::Validation("expires_at", "expires_at must be in the future");
      continue;
    }
    if (p.idempotency_key) {
      auto found = existing.find(*p.idempotency_key);
      if (found != existing.end()) {
        out[i] = EnqueueResult{found->second, false};
        continue;
      }
    }
    auto cached = ctx.queues.find(p.queue_name);
    if (cached == ctx.queues.end()) {
      Result<QueueConfig> config = tx.EnsureQueue(p.queue_name, ctx.now, ctx.max_queues);
      // Past the queue limit: this item is refused, the rest of the batch
      // goes on (the count read nothing that needs undoing).
      if (config.status().code() == ErrorCode::kConflict) {
        out[i] = config.status();
        continue;
      }
      if (!config.ok()) return config.status();
      cached = ctx.queues.emplace(p.queue_name, std::move(config).value()).first;
    }
    const QueueConfig& queue = cached->second;
    if (!queue.enabled) {
      out[i] = Status::Conflict("queue " + p.queue_name + " is disabled");
      continue;
    }
    if (p.completion_webhook) {
      REDRIVE_RETURN_IF_ERROR(webhook_ops::EnsureCompletionWebhook(tx, ctx));
    }
    made.push_back(ctx.MakeNewJob(p, queue));
    if (i < blocked.size() && blocked[i]) made.back().job.status = JobStatus::kBlocked;
    made_for.push_back(i);
  }
  if (made.empty()) return out;

  // One batch of inserts (one round trip on PostgreSQL).
  REDRIVE_ASSIGN_OR_RETURN(std::vector<store::InsertOutcome> inserted, tx.InsertJobs(made));
  for (size_t k = 0; k < made.size(); ++k) {
    const store::InsertOutcome& o = inserted[k];
    if (o.created) {
      ctx.Track(made[k].job);
      REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, JobWrite{Outcome::kCreated, made[k].job, nullptr}));
    }
    out[made_for[k]] = EnqueueResult{o.id, o.created};
  }
  return out;
}

Result<EnqueueResult> Enqueue(store::WriteTx& tx, TxContext& ctx, const EnqueueParams& p) {
  // A span of the one item: its payload is not copied.
  REDRIVE_ASSIGN_OR_RETURN(auto results, EnqueueBatch(tx, ctx, std::span(&p, 1)));
  return std::move(results[0]);
}

Result<std::vector<Job>> Claim(store::WriteTx& tx, TxContext& ctx, const std::string& queue,
                               const std::string& worker_id, int limit,
                               std::chrono::seconds lease_duration) {
  std::vector<Job> claimed;
  // One batch of reads (one round trip on PostgreSQL): the queue, the
  // worker, the due scheduled jobs and the claimable ones.
  REDRIVE_ASSIGN_OR_RETURN(store::ClaimReads reads,
                           tx.ReadForClaim(queue, worker_id, ctx.now, limit));
  if (!reads.queue || reads.queue->paused || !reads.queue->enabled) return claimed;
  // A worker that deregistered gets nothing, not even from a long-poll it
  // left parked while shutting down: the job would sit leased to a process
  // that is gone until the lease ran out, and that would cost it a retry.
  if (reads.worker && reads.worker->deregistered_at) return claimed;

  // Promote what became due since the scheduler last ran, so a claim never
  // waits for the sweep to see a due retry.
  REDRIVE_ASSIGN_OR_RETURN(
      auto promotions,
      ApplyToLoadedBatch(tx, ctx, reads.due, [](const Job&) -> Event { return event::Promote{}; }));
  const auto promoted = static_cast<long long>(promotions.size());

  // The candidates: the claimable jobs read with the promotions' results
  // (pending now, and locked by this transaction), in the claim order
  // (SelectClaimable's: highest priority, then oldest, then id), the first
  // `limit` of them. Skipped in the batch: a job another node took first
  // (PostgreSQL) or that just expired.
  std::vector<Job> candidates = std::move(reads.claimable);
  for (Change& c : promotions) {
    const Job& j = c.after;
    if (j.status != JobStatus::kPending || (j.expires_at && *j.expires_at <= ctx.now)) continue;
    candidates.push_back(std::move(c.after));
  }
  if (promoted > 0) {
    std::sort(candidates.begin(), candidates.end(), [](const Job& a, const Job& b) {
      if (a.priority != b.priority) return a.priority > b.priority;
      if (a.created_at != b.created_at) return a.created_at < b.created_at;
      return a.id < b.id;
    });
  }
  if (candidates.size() > static_cast<size_t>(limit)) candidates.resize(limit);
  REDRIVE_ASSIGN_OR_RETURN(
      auto claims, ApplyToLoadedBatch(tx, ctx, candidates, [&](const Job&) -> Event {
        return event::Claim{worker_id, NewUuidV7(ctx.now, ctx.random), lease_duration};
      }));
  claimed.reserve(claims.size());
  for (Change& c : claims) claimed.push_back(std::move(c.after));
  // Promoted jobs this claim did not take may wake other waiters.
  const long long left = promoted - static_cast<long long>(claimed.size());
  if (left > 0) {
    ctx.effects.became_claimable[queue] = left;
  } else {
    ctx.effects.became_claimable.erase(queue);
  }
  return claimed;
}

namespace {

Event AckEvent(const std::string& worker_id, const Ack& ack) {
  if (ack.error) {
    return event::Fail{worker_id,    ack.lease_id,    *ack.error,
                       ack.no_retry, ack.retry_after, ack.details_json};
  }
  return event::Complete{worker_id, ack.lease_id, ack.result_json};
}

// A refusal that is a per-item result, not a failure of the call.
bool IsAckRefusal(ErrorCode code) {
  return code == ErrorCode::kLeaseExpired || code == ErrorCode::kConflict ||
         code == ErrorCode::kNotFound || code == ErrorCode::kAccessDenied;
}

}  // namespace

FailOutcome FailOutcomeOf(const Job& after) {
  FailOutcome o;
  o.status = after.status;
  o.will_retry = after.status != JobStatus::kDeadletter;
  o.retry_count = after.retry_count;
  if (o.will_retry) o.scheduled_at = after.scheduled_at;
  o.dead_reason = after.dead_reason;
  return o;
}

Result<std::vector<AckItemResult>> ApplyAcks(store::WriteTx& tx, TxContext& ctx,
                                             const std::string& worker_id,
                                             const std::vector<Ack>& acks,
                                             const QueueScope& scope) {
  std::vector<AckItemResult> out;
  out.reserve(acks.size());
  std::vector<std::string> ids;
  ids.reserve(acks.size());
  for (const Ack& ack : acks) ids.push_back(ack.job_id);
  std::vector<std::string> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  if (acks.size() <= 1 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    // One ack, or one job acked twice (the second must see the first's
    // write): one by one.
    for (const Ack& ack : acks) {
      REDRIVE_ASSIGN_OR_RETURN(auto item, ApplyAck(tx, ctx, worker_id, ack, scope));
      out.push_back(std::move(item));
    }
    return out;
  }
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> loaded, tx.GetJobs(ids));
  std::map<std::string, const Job*> by_id;
  for (const Job& job : loaded) by_id.emplace(job.id, &job);

  std::vector<Event> events;
  std::vector<Change> changes;
  std::vector<size_t> change_of(acks.size(), SIZE_MAX);
  events.reserve(acks.size());  // JobWrite points at them: no reallocation
  changes.reserve(acks.size());
  for (size_t i = 0; i < acks.size(); ++i) {
    AckItemResult r;
    r.job_id = acks[i].job_id;
    auto job = by_id.find(acks[i].job_id);
    if (job == by_id.end()) {
      r.status = Status::NotFound("job " + acks[i].job_id + " not found");
    } else if (Status allowed = scope.Check(job->second->queue_name); !allowed.ok()) {
      r.status = std::move(allowed);
    } else {
      Event event = AckEvent(worker_id, acks[i]);
      auto change = ctx.Apply(*job->second, event);
      if (!change.ok()) {
        if (!IsAckRefusal(change.status().code())) return change.status();
        r.status = change.status();
      } else {
        change_of[i] = changes.size();
        events.push_back(std::move(event));
        changes.push_back(std::move(*change));
      }
    }
    out.push_back(std::move(r));
  }
  REDRIVE_ASSIGN_OR_RETURN(std::vector<bool> applied, tx.ApplyChanges(changes));
  for (size_t i = 0; i < acks.size(); ++i) {
    if (change_of[i] == SIZE_MAX) continue;
    const size_t c = change_of[i];
    if (!applied[c]) {
      out[i].status = GuardFailed(changes[c]);
      continue;
    }
    const Job& after = changes[c].after;
    ctx.Track(after);
    REDRIVE_RETURN_IF_ERROR(
        ctx.Wrote(tx, JobWrite{changes[c].outcome, after, &events[c], changes[c].before.status}));
    out[i].new_status = after.status;
    if (acks[i].error) out[i].failure = FailOutcomeOf(after);
  }
  return out;
}

Result<AckItemResult> ApplyAck(store::WriteTx& tx, TxContext& ctx, const std::string& worker_id,
                               const Ack& ack, const QueueScope& scope) {
  AckItemResult r;
  r.job_id = ack.job_id;
  Result<Change> change = ApplyToJob(tx, ctx, ack.job_id, AckEvent(worker_id, ack), scope);
  if (!change.ok()) {
    const ErrorCode code = change.status().code();
    if (!IsAckRefusal(code)) return change.status();
    r.status = change.status();
    return r;
  }
  r.new_status = change->after.status;
  if (ack.error) r.failure = FailOutcomeOf(change->after);
  return r;
}

}  // namespace redrive::engine::ops
