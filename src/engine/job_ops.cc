#include "engine/job_ops.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>

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

Result<Claimed> ClaimFor(store::WriteTx& tx, TxContext& ctx, const std::string& queue,
                         std::span<const Claimer> claimers) {
  Claimed out;
  std::vector<std::vector<Job>>& claimed = out.jobs;
  claimed.resize(claimers.size());
  std::vector<std::string> worker_ids;
  int total = 0;
  for (const Claimer& c : claimers) {
    if (std::find(worker_ids.begin(), worker_ids.end(), c.worker_id) == worker_ids.end()) {
      worker_ids.push_back(c.worker_id);
    }
    total += c.limit;
  }
  // One batch of reads (one round trip on PostgreSQL): the queue, the
  // workers, the due scheduled jobs and the claimable ones.
  REDRIVE_ASSIGN_OR_RETURN(store::ClaimReads reads,
                           tx.ReadForClaim(queue, worker_ids, ctx.now, total));
  if (!reads.queue || reads.queue->paused || !reads.queue->enabled) {
    out.exhausted = true;  // until it is created, resumed or enabled: a wake-up
    return out;
  }
  // A worker that deregistered gets nothing, not even from a long-poll it
  // left parked while shutting down: the job would sit leased to a process
  // that is gone until the lease ran out, and that would cost it a retry.
  auto gone = [&](const std::string& worker_id) {
    return std::any_of(reads.workers.begin(), reads.workers.end(),
                       [&](const WorkerInfo& w) { return w.id == worker_id && w.deregistered_at; });
  };
  std::vector<int> wants(claimers.size(), 0);
  int wanted = 0;
  for (size_t i = 0; i < claimers.size(); ++i) {
    if (!gone(claimers[i].worker_id)) wants[i] = claimers[i].limit;
    wanted += wants[i];
  }
  if (wanted == 0) return out;

  // Promote what became due since the scheduler last ran, so a claim never
  // waits for the sweep to see a due retry.
  REDRIVE_ASSIGN_OR_RETURN(
      auto promotions,
      ApplyToLoadedBatch(tx, ctx, reads.due, [](const Job&) -> Event { return event::Promote{}; }));
  const auto promoted = static_cast<long long>(promotions.size());

  // The candidates: the claimable jobs read with the promotions' results
  // (pending now, and locked by this transaction), in the claim order
  // (SelectClaimable's: highest priority, then oldest, then id), the first
  // `wanted` of them. Skipped in the batch: a job another node took first
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
  // Fewer than wanted: the reads found every claimable job (not skipped).
  out.exhausted = candidates.size() < static_cast<size_t>(wanted);
  if (candidates.size() > static_cast<size_t>(wanted)) candidates.resize(wanted);
  // Dealt in the claimers' order: the first takes the first jobs. (Keys
  // view the candidates' ids, which stay put from here on.)
  std::unordered_map<std::string_view, size_t> owner;
  for (size_t i = 0, next = 0; i < claimers.size(); ++i) {
    for (int k = 0; k < wants[i] && next < candidates.size(); ++k) {
      owner.emplace(candidates[next++].id, i);
    }
  }
  REDRIVE_ASSIGN_OR_RETURN(
      auto claims, ApplyToLoadedBatch(tx, ctx, candidates, [&](const Job& job) -> Event {
        const Claimer& c = claimers[owner.at(job.id)];
        return event::Claim{c.worker_id, NewUuidV7(ctx.now, ctx.random), c.lease_duration};
      }));
  // Promoted jobs this claim did not take may wake other waiters.
  const long long left = promoted - static_cast<long long>(claims.size());
  for (Change& c : claims) claimed[owner.at(c.after.id)].push_back(std::move(c.after));
  if (!claims.empty()) ctx.effects.claimed[queue] += static_cast<long long>(claims.size());
  if (left > 0) {
    ctx.effects.became_claimable[queue] = left;
  } else {
    ctx.effects.became_claimable.erase(queue);
  }
  return out;
}

Event AckEvent(const std::string& worker_id, const Ack& ack) {
  if (ack.error) {
    return event::Fail{worker_id,    ack.lease_id,    *ack.error,
                       ack.no_retry, ack.retry_after, ack.details_json};
  }
  return event::Complete{worker_id, ack.lease_id, ack.result_json};
}

namespace {

// A refusal that is a per-item result of an ack, not a failure of the call.
bool IsAckRefusal(ErrorCode code) {
  return code == ErrorCode::kLeaseExpired || code == ErrorCode::kConflict ||
         code == ErrorCode::kNotFound || code == ErrorCode::kAccessDenied;
}

// What ApplyToJob refuses for one job without a store error: the job is
// missing or outside the caller's queues, or the transition is refused.
bool IsRefusal(ErrorCode code) { return IsAckRefusal(code) || code == ErrorCode::kValidation; }

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

Result<std::vector<Result<Job>>> ApplyToJobs(store::WriteTx& tx, TxContext& ctx,
                                             std::span<const JobEvent> items) {
  std::vector<Result<Job>> out;
  out.reserve(items.size());
  std::vector<std::string> ids;
  ids.reserve(items.size());
  for (const JobEvent& item : items) ids.push_back(item.job_id);
  std::vector<std::string> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  if (items.size() <= 1 || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    // One item, or one job twice (the second must see the first's write):
    // one by one.
    static const QueueScope kEveryQueue;
    for (const JobEvent& item : items) {
      Result<Change> change = ApplyToJob(tx, ctx, item.job_id, item.event,
                                         item.scope != nullptr ? *item.scope : kEveryQueue);
      if (change.ok()) {
        out.emplace_back(std::move(change->after));
        continue;
      }
      if (!IsRefusal(change.status().code())) return change.status();
      out.emplace_back(change.status());
    }
    return out;
  }
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> loaded, tx.GetJobs(ids));
  std::map<std::string, const Job*, std::less<>> by_id;
  for (const Job& job : loaded) by_id.emplace(job.id, &job);

  std::vector<Change> changes;
  std::vector<size_t> change_of(items.size(), SIZE_MAX);
  changes.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const JobEvent& item = items[i];
    auto job = by_id.find(item.job_id);
    if (job == by_id.end()) {
      out.emplace_back(Status::NotFound("job " + item.job_id + " not found"));
      continue;
    }
    if (item.scope != nullptr) {
      if (Status allowed = item.scope->Check(job->second->queue_name); !allowed.ok()) {
        out.emplace_back(std::move(allowed));
        continue;
      }
    }
    auto change = ctx.Apply(*job->second, item.event);
    if (!change.ok()) {
      out.emplace_back(change.status());  // decided, nothing written
      continue;
    }
    change_of[i] = changes.size();
    changes.push_back(std::move(*change));
    out.emplace_back(Status::Internal("not applied"));  // replaced below
  }
  REDRIVE_ASSIGN_OR_RETURN(std::vector<bool> applied, tx.ApplyChanges(changes));
  for (size_t i = 0; i < items.size(); ++i) {
    if (change_of[i] == SIZE_MAX) continue;
    const Change& change = changes[change_of[i]];
    if (!applied[change_of[i]]) {
      out[i] = GuardFailed(change);
      continue;
    }
    ctx.Track(change.after);
    REDRIVE_RETURN_IF_ERROR(ctx.Wrote(
        tx, JobWrite{change.outcome, change.after, &items[i].event, change.before.status}));
    out[i] = change.after;
  }
  return out;
}

Result<std::vector<AckItemResult>> AckResults(const std::vector<Ack>& acks,
                                              std::span<Result<Job>> applied) {
  std::vector<AckItemResult> out(acks.size());
  for (size_t i = 0; i < acks.size(); ++i) {
    out[i].job_id = acks[i].job_id;
    if (!applied[i].ok()) {
      // A refusal an ack cannot answer per item fails the call.
      if (!IsAckRefusal(applied[i].status().code())) return applied[i].status();
      out[i].status = applied[i].status();
      continue;
    }
    out[i].new_status = applied[i]->status;
    if (acks[i].error) out[i].failure = FailOutcomeOf(*applied[i]);
  }
  return out;
}

Result<std::vector<AckItemResult>> ApplyAcks(store::WriteTx& tx, TxContext& ctx,
                                             const std::string& worker_id,
                                             const std::vector<Ack>& acks,
                                             const QueueScope& scope) {
  std::vector<JobEvent> items;
  items.reserve(acks.size());
  for (const Ack& ack : acks) items.push_back({ack.job_id, AckEvent(worker_id, ack), &scope});
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Result<Job>> applied, ApplyToJobs(tx, ctx, items));
  return AckResults(acks, applied);
}

}  // namespace redrive::engine::ops
