// Operator operations on jobs and the DLQ: reads, cancel, redrive, repair, purge.
#include <algorithm>
#include <set>

#include "core/closest_classes.h"
#include "core/error_fingerprint.h"
#include "core/time_format.h"
#include "engine/dependency_release.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

void Engine::GetJob(std::string id, Callback<Job> done) {
  impl_->Read<Job>([id = std::move(id)](ReadTx& tx) { return tx.GetJob(id); }, std::move(done));
}

namespace {
// Each route's parameters → the store's one JobFilter; the fields a route
// does not have stay unset (they do not filter).
store::JobFilter FilterOf(const ListJobsParams& p) {
  store::JobFilter f;
  f.queue_name = p.queue_name;
  f.status = p.status;
  f.tag = p.tag;
  f.fingerprint = p.fingerprint;
  f.limit = p.limit;
  f.offset = p.offset;
  return f;
}

store::JobFilter FilterOf(const DeadLetterFilter& dead, int limit, int offset) {
  store::JobFilter f;
  f.queue_name = dead.queue_name;
  f.tag = dead.tag;
  f.dead_reason = dead.dead_reason;
  f.error_prefix = dead.error_prefix;
  f.fingerprint = dead.fingerprint;
  f.limit = limit;
  f.offset = offset;
  return f;
}
}  // namespace

void Engine::ListJobs(ListJobsParams p, Callback<std::vector<Job>> done) {
  impl_->Read<std::vector<Job>>([f = FilterOf(p)](ReadTx& tx) { return tx.ListJobs(f, false); },
                                std::move(done));
}

void Engine::JobStatuses(std::vector<std::string> ids, Callback<std::vector<Job>> done) {
  impl_->Read<std::vector<Job>>([ids = std::move(ids)](ReadTx& tx) { return tx.GetJobs(ids); },
                                std::move(done));
}

void Engine::Stats(std::optional<std::string> queue_name, Callback<StatusCounts> done) {
  impl_->Read<StatusCounts>([q = std::move(queue_name)](ReadTx& tx) { return tx.CountJobs(q); },
                            std::move(done));
}

void Engine::History(std::string job_id, Callback<std::vector<HistoryEntry>> done) {
  impl_->Read<std::vector<HistoryEntry>>(
      [id = std::move(job_id)](ReadTx& tx) -> Result<std::vector<HistoryEntry>> {
        REDRIVE_RETURN_IF_ERROR(tx.GetJob(id).status());  // NOT_FOUND for unknown jobs
        return tx.GetHistory(id);
      },
      std::move(done));
}

void Engine::ListDeadLetters(ListDeadLettersParams p, Callback<std::vector<Job>> done) {
  impl_->Read<std::vector<Job>>(
      [f = FilterOf(p.filter, p.limit, p.offset)](ReadTx& tx) { return tx.ListDeadLetters(f); },
      std::move(done));
}

void Engine::SummarizeDeadLetters(SummarizeDeadLettersParams p,
                                  Callback<std::vector<DeadLetterGroup>> done) {
  impl_->Read<std::vector<DeadLetterGroup>>(
      [f = FilterOf(p.filter, p.limit, 0)](ReadTx& tx) -> Result<std::vector<DeadLetterGroup>> {
        REDRIVE_ASSIGN_OR_RETURN(std::vector<DeadLetterGroup> groups, tx.SummarizeDeadLetters(f));
        // Every job of a class normalizes alike: the example's is the class's.
        for (DeadLetterGroup& g : groups) {
          if (g.error) g.normalized_error = NormalizeError(*g.error);
        }
        return groups;
      },
      std::move(done));
}

void Engine::Cancel(std::string job_id, StatusCallback done) {
  impl_->Write<bool>(
      [id = std::move(job_id)](WriteTx& tx, TxContext& ctx) -> Result<bool> {
        REDRIVE_RETURN_IF_ERROR(ops::ApplyToJob(tx, ctx, id, event::Cancel{}).status());
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

void Engine::Retry(RetryParams p, Callback<Job> done) {
  impl_->Write<Job>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<Job> {
        REDRIVE_RETURN_IF_ERROR(ops::EnsureTargetQueue(tx, ctx, p.target_queue));
        event::Retry retry;
        retry.source = "job_retry";
        retry.new_expires_at = p.expires_at;
        retry.budget = p.budget;
        retry.target_queue = p.target_queue;
        // A cancelled job of a workflow may not have run yet: it waits again
        // for what it waits for (a dead one ran, so its dependencies were met).
        REDRIVE_ASSIGN_OR_RETURN(retry.dependencies_met, ops::DependenciesMet(tx, p.job_id));
        REDRIVE_ASSIGN_OR_RETURN(Change c, ops::ApplyToJob(tx, ctx, p.job_id, retry));
        return std::move(c.after);
      },
      std::move(done));
}

void Engine::SetPriority(std::string job_id, int priority, Callback<PriorityChange> done) {
  impl_->Write<PriorityChange>(
      [id = std::move(job_id), priority](WriteTx& tx, TxContext& ctx) -> Result<PriorityChange> {
        REDRIVE_ASSIGN_OR_RETURN(Change c,
                                 ops::ApplyToJob(tx, ctx, id, event::SetPriority{priority}));
        return PriorityChange{id, c.before.priority, c.after.priority};
      },
      std::move(done));
}

void Engine::UpdatePayload(std::string job_id, std::string payload_json, Callback<Job> done) {
  impl_->Write<Job>(
      [id = std::move(job_id), payload = std::move(payload_json)](WriteTx& tx,
                                                                  TxContext& ctx) -> Result<Job> {
        REDRIVE_ASSIGN_OR_RETURN(Change c,
                                 ops::ApplyToJob(tx, ctx, id, event::UpdatePayload{payload}));
        return std::move(c.after);
      },
      std::move(done));
}

namespace {
// The store selection of `dead` (no ids, no age, no limit: the caller adds them).
store::DeadLetterSelection SelectionOf(const DeadLetterFilter& dead) {
  store::DeadLetterSelection sel;
  sel.queue_name = dead.queue_name;
  sel.dead_reason = dead.dead_reason;
  sel.tag = dead.tag;
  sel.error_prefix = dead.error_prefix;
  sel.fingerprint = dead.fingerprint;
  return sel;
}

store::DeadLetterSelection SelectionOf(const DlqRetryParams& p) {
  store::DeadLetterSelection sel;
  if (p.job_ids.empty()) sel = SelectionOf(p.filter);
  sel.job_ids = p.job_ids;
  // Named jobs are all retried: `limit` caps a filter, not an explicit list.
  sel.limit = std::max<int>(p.limit, static_cast<int>(p.job_ids.size()));
  return sel;
}

constexpr size_t kClosestClassesShown = 5;
// The classes ranked for closeness: the largest ones of the scope.
constexpr int kClassesCompared = 100;

// The DLQ's classes most like what `filter` asked, for a selection that
// matched nothing: those of the queue asked, or of every queue when that
// queue has no dead job (the name may be mistyped).
Result<std::vector<DeadLetterGroup>> ClosestClassesTo(ReadTx& tx, const DeadLetterFilter& filter) {
  ClassQuery asked{filter.queue_name, filter.dead_reason, filter.error_prefix};
  store::JobFilter scope;
  scope.queue_name = filter.queue_name;
  scope.limit = kClassesCompared;
  REDRIVE_ASSIGN_OR_RETURN(std::vector<DeadLetterGroup> groups, tx.SummarizeDeadLetters(scope));
  if (groups.empty() && filter.queue_name) {
    scope.queue_name.reset();
    REDRIVE_ASSIGN_OR_RETURN(groups, tx.SummarizeDeadLetters(scope));
  }
  return ClosestClasses(std::move(groups), asked, kClosestClassesShown);
}

bool Filters(const DeadLetterFilter& f) {
  return f.queue_name || f.dead_reason || f.tag || f.error_prefix || f.fingerprint;
}

// The interval between two jobs of a throttled redrive at `rate` per second.
// The API bounds the rate; saturate anyway so no rate can overflow the cast.
Micros Step(double rate, size_t jobs) {
  const double us = 1e6 * double(jobs) / rate;
  return us < 9e18 ? Micros(static_cast<int64_t>(us)) : Micros::max();
}

// Schedules a throttled redrive of `dead` (oldest dead first) and records
// where it ends on each queue it touches (`target`, when they move there). It queues behind the
// earlier throttled redrives of those queues: its first job is due one interval after the latest of
// their last jobs (or now), so two calls in a row share the rate instead of adding up. Queues are
// locked in name order (no deadlock between two redrives on PostgreSQL), so a concurrent one waits
// and then reads this one's end.
Result<std::vector<Instant>> ThrottledDueTimes(WriteTx& tx, const std::vector<Job>& dead,
                                               const std::optional<std::string>& target,
                                               double rate, Instant now) {
  std::set<std::string> names;
  for (const Job& j : dead) names.insert(target.value_or(j.queue_name));
  std::vector<QueueConfig> queues;
  Instant start = now;
  for (const std::string& name : names) {
    // Dead jobs name their queue: no new name, so no queue limit (a queue
    // deleted without its jobs comes back with defaults).
    REDRIVE_RETURN_IF_ERROR(tx.EnsureQueue(name, now, store::kNoQueueLimit).status());
    REDRIVE_ASSIGN_OR_RETURN(std::optional<QueueConfig> q, tx.LockQueue(name));
    if (!q) return Status::Aborted("queue " + name + " was deleted during a redrive");
    queues.push_back(std::move(*q));
    if (const std::optional<Instant>& until = queues.back().redrive_until) {
      start = std::max(start, AddClamped(*until, Step(rate, 1)));
    }
  }
  std::vector<Instant> due;
  due.reserve(dead.size());
  for (size_t i = 0; i < dead.size(); ++i) due.push_back(AddClamped(start, Step(rate, i)));
  if (due.empty()) return due;
  for (QueueConfig& q : queues) {
    q.redrive_until = std::max(q.redrive_until.value_or(due.back()), due.back());
    REDRIVE_RETURN_IF_ERROR(tx.PutQueue(q));
  }
  return due;
}

}  // namespace

void Engine::DlqRetry(DlqRetryParams p, Callback<DlqRetryResult> done) {
  impl_->Write<DlqRetryResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<DlqRetryResult> {
        const store::DeadLetterSelection sel = SelectionOf(p);
        DlqRetryResult r;
        r.dry_run = p.dry_run;
        REDRIVE_ASSIGN_OR_RETURN(r.matched_count, tx.CountDeadLetters(sel));
        REDRIVE_ASSIGN_OR_RETURN(auto dead, tx.SelectDeadLetters(sel));
        r.selected_count = static_cast<long long>(dead.size());
        if (dead.empty() && p.job_ids.empty() && Filters(p.filter)) {
          REDRIVE_ASSIGN_OR_RETURN(r.closest_classes, ClosestClassesTo(tx, p.filter));
        }
        if (p.dry_run) return r;
        if (!dead.empty()) REDRIVE_RETURN_IF_ERROR(ops::EnsureTargetQueue(tx, ctx, p.target_queue));
        std::vector<Instant> due;
        if (p.rate_per_second && *p.rate_per_second > 0) {
          REDRIVE_ASSIGN_OR_RETURN(
              due, ThrottledDueTimes(tx, dead, p.target_queue, *p.rate_per_second, ctx.now));
          if (!due.empty()) {
            r.first_due_at = due.front();
            r.last_due_at = due.back();
          }
        }
        r.retried_ids.reserve(dead.size());
        for (size_t i = 0; i < dead.size(); ++i) {
          event::Retry retry;
          retry.source = "dlq_retry";
          retry.budget = p.budget;
          retry.target_queue = p.target_queue;
          if (!due.empty()) retry.run_at = due[i];
          REDRIVE_ASSIGN_OR_RETURN(Change c, ops::ApplyToLoaded(tx, ctx, dead[i], retry));
          r.retried_ids.push_back(c.after.id);
        }
        return r;
      },
      std::move(done));
}

void Engine::DlqPurge(DlqPurgeParams p, Callback<DlqPurgeResult> done) {
  impl_->Write<DlqPurgeResult>(
      [p = std::move(p)](WriteTx& tx, TxContext&) -> Result<DlqPurgeResult> {
        store::DeadLetterSelection sel = SelectionOf(p.filter);
        sel.dead_before = p.older_than;
        sel.limit = p.limit;
        // A dry run selects exactly what the real purge would, so its count is exact.
        REDRIVE_ASSIGN_OR_RETURN(auto dead, tx.SelectDeadLetters(sel));
        DlqPurgeResult r;
        r.dry_run = p.dry_run;
        if (dead.empty() && Filters(p.filter)) {
          REDRIVE_ASSIGN_OR_RETURN(r.closest_classes, ClosestClassesTo(tx, p.filter));
        }
        if (p.dry_run) {
          r.count = static_cast<long long>(dead.size());
          return r;
        }
        std::vector<std::string> ids;
        ids.reserve(dead.size());
        for (const Job& j : dead) ids.push_back(j.id);
        REDRIVE_ASSIGN_OR_RETURN(r.count, tx.DeleteJobs(ids));
        return r;
      },
      std::move(done));
}

}  // namespace redrive::engine
