#include "engine/services/autoredrive_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/ids.h"
#include "core/json_text.h"
#include "engine/job_ops.h"

namespace redrive::engine {
namespace autoredrive_ops {
namespace {

// What became of the batch's jobs.
Status Observe(store::WriteTx& tx, const AutoredrivePolicy& p, const AutoredriveState& s,
               AutoredriveObservation& o) {
  if (s.batch_job_ids.empty()) return Status::Ok();
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> jobs, tx.GetJobs(s.batch_job_ids));
  // Retention (or an operator) may have deleted some: they count as "other".
  o.died_other = static_cast<int>(s.batch_job_ids.size() - jobs.size());
  for (const Job& j : jobs) {
    switch (j.status) {
      case JobStatus::kCompleted:
        ++o.completed;
        break;
      case JobStatus::kDeadletter:
        if (j.error_fingerprint == p.fingerprint) {
          ++o.died_same;
        } else {
          ++o.died_other;
        }
        break;
      case JobStatus::kCancelled:
      case JobStatus::kQuarantined:
        ++o.died_other;
        break;
      default:  // pending, scheduled, processing, blocked
        ++o.in_flight;
        break;
    }
  }
  return Status::Ok();
}

// Redrives at most `n` eligible jobs: the ids of those it changed.
Result<std::vector<std::string>> Redrive(store::WriteTx& tx, TxContext& ctx,
                                         const AutoredrivePolicy& p, int n) {
  std::vector<std::string> ids;
  if (n <= 0) return ids;
  REDRIVE_ASSIGN_OR_RETURN(store::SelectedJobs selected,
                           tx.SelectJobsAfter(EligibleSelection(p, n)));
  std::vector<Job>& jobs = selected.jobs;
  REDRIVE_ASSIGN_OR_RETURN(std::vector<Change> changes,
                           ops::ApplyToLoadedBatch(tx, ctx, jobs, [](const Job&) -> Event {
                             event::Retry retry;
                             retry.source = kAutoredriveActor;
                             retry.budget = RetryBudget{};  // reset
                             return retry;
                           }));
  ids.reserve(changes.size());
  for (const Change& c : changes) ids.push_back(c.after.id);
  REDRIVE_RETURN_IF_ERROR(tx.CountAutoRevivals(ids).status());
  return ids;
}

// The audit entry of a decision that changed the phase.
AuditEntry EntryOf(TxContext& ctx, const AutoredrivePolicy& p, const AutoredriveState& s,
                   const AutoredriveDecision& d, const std::vector<std::string>& redriven) {
  AuditEntry e;
  e.id = NewUuidV7(ctx.now, ctx.random);
  e.at = ctx.now;
  e.actor = kAutoredriveActor;
  e.role = "system";
  e.method = "DUTY";
  e.route = "autoredrive";
  e.action = "dlq.autoredrive";
  e.targets.push_back("queue:" + p.queue_name);
  for (const std::string& id : redriven) {
    if (e.targets.size() >= kMaxAuditTargets) break;
    e.targets.push_back("job:" + id);
  }
  e.selector = JsonObjectText()
                   .Str("queue_name", p.queue_name)
                   .Str("fingerprint", p.fingerprint)
                   .Str("decision", AutoredriveDecisionName(d.kind))
                   .Str("phase", AutoredrivePhaseName(s.phase))
                   .Int("wave", s.wave)
                   .Build();
  e.count = static_cast<int64_t>(redriven.size());
  e.status = 200;
  e.reason = d.reason.substr(0, kMaxAuditReasonBytes);
  return e;
}

bool Quiet(const store::AutoredriveRecord& rec, Instant now) {
  const AutoredriveState& s = rec.state;
  const bool cooling =
      s.phase == AutoredrivePhase::kCooling || s.phase == AutoredrivePhase::kBackedOff;
  return rec.policy.enabled && cooling && s.next_check_at && now < *s.next_check_at;
}

}  // namespace

store::JobSelection EligibleSelection(const AutoredrivePolicy& p, int limit) {
  store::JobSelection sel;
  sel.statuses = {JobStatus::kDeadletter};
  sel.match.queue_name = p.queue_name;
  sel.match.fingerprint = p.fingerprint;
  sel.match.dead_reason = p.reason;
  sel.match.auto_revivals_below = p.max_revivals_per_job;
  sel.match.limit = limit;
  return sel;
}

Result<int> Step(store::WriteTx& tx, TxContext& ctx, const std::string& queue_name, Instant now) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<store::AutoredriveRecord> rec,
                           tx.GetAutoredrive(queue_name));  // locked
  if (!rec || Quiet(*rec, now)) return 0;
  const AutoredrivePolicy& p = rec->policy;
  AutoredriveObservation seen;
  if (p.enabled) {
    REDRIVE_RETURN_IF_ERROR(Observe(tx, p, rec->state, seen));
    REDRIVE_ASSIGN_OR_RETURN(seen.eligible, tx.CountSelectedJobs(EligibleSelection(p, 0)));
  }
  AutoredriveStep step = StepAutoredrive(p, rec->state, seen, now);
  if (step.state == rec->state) return 0;
  REDRIVE_ASSIGN_OR_RETURN(std::vector<std::string> redriven,
                           Redrive(tx, ctx, p, step.decision.redrive));
  AutoredriveState& s = step.state;
  s.batch_job_ids.insert(s.batch_job_ids.end(), redriven.begin(), redriven.end());
  s.total_revived += static_cast<long long>(redriven.size());
  REDRIVE_RETURN_IF_ERROR(tx.UpdateAutoredriveState(queue_name, s));
  const int n = static_cast<int>(redriven.size());
  if (n > 0) ctx.effects.autoredrive_jobs[queue_name] += n;
  if (step.decision.notable()) {
    ctx.effects.autoredrive_decisions[AutoredriveDecisionName(step.decision.kind)]++;
    REDRIVE_RETURN_IF_ERROR(tx.InsertAuditEntry(EntryOf(ctx, p, s, step.decision, redriven)));
    REDRIVE_RETURN_IF_ERROR(ctx.Wrote(tx, AutoredriveWrite{p, s, step.decision, n}));
  }
  return n;
}

}  // namespace autoredrive_ops

ServiceRun AutoredriveRunner::RunOnce(Instant now) {
  ServiceRun run;
  std::vector<std::string> queues;
  bool active = false;
  {
    auto tx = store_.BeginRead();
    if (!tx.ok()) {
      spdlog::warn("autoredrive: {}", tx.status().ToString());
      return run;
    }
    auto recs = (*tx)->ListAutoredrive();
    if (!recs.ok()) {
      spdlog::warn("autoredrive: {}", recs.status().ToString());
      return run;
    }
    for (const store::AutoredriveRecord& rec : *recs) {
      if (!rec.policy.enabled && rec.state.phase == AutoredrivePhase::kIdle) continue;
      active = true;
      if (autoredrive_ops::Quiet(rec, now)) continue;
      if (static_cast<int>(queues.size()) < kMaxAutoredrivePoliciesPerPass) {
        queues.push_back(rec.policy.queue_name);
      }
    }
  }
  for (const std::string& queue : queues) {
    int n = 0;
    Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext& ctx) -> Status {
      ctx.now = now;
      REDRIVE_ASSIGN_OR_RETURN(n, autoredrive_ops::Step(tx, ctx, queue, now));
      return Status::Ok();
    });
    if (!st.ok()) {
      spdlog::warn("autoredrive of queue {}: step failed (retried on the next pass): {}", queue,
                   st.ToString());
      continue;
    }
    run.changed += n;
  }
  if (active) run.next_run = now + kLeadershipCheckInterval;
  return run;
}

}  // namespace redrive::engine
