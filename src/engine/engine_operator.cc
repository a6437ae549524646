// Operator operations on jobs and the DLQ: reads, cancel, redrive, repair, purge.
#include <algorithm>

#include "core/time_format.h"
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
      [f = FilterOf(p.filter, p.limit, 0)](ReadTx& tx) { return tx.SummarizeDeadLetters(f); },
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
        event::Retry retry;
        retry.source = "job_retry";
        retry.new_expires_at = p.expires_at;
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
}  // namespace

void Engine::DlqRetry(DlqRetryParams p, Callback<DlqRetryResult> done) {
  impl_->Write<DlqRetryResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<DlqRetryResult> {
        REDRIVE_ASSIGN_OR_RETURN(auto dead, tx.SelectDeadLetters(SelectionOf(p)));
        DlqRetryResult r;
        if (p.dry_run) {
          r.dry_run = true;
          r.matched_count = static_cast<long long>(dead.size());
          return r;
        }
        r.retried_ids.reserve(dead.size());
        for (size_t i = 0; i < dead.size(); ++i) {
          event::Retry retry;
          retry.source = "dlq_retry";
          if (p.rate_per_second && *p.rate_per_second > 0) {
            // Throttled redrive: the i-th job is due at now + i/r seconds. The
            // API bounds r; saturate anyway so no rate can overflow the cast
            // or schedule past the last formattable instant.
            const double us = 1e6 * double(i) / *p.rate_per_second;
            const Micros offset = us < 9e18 ? Micros(static_cast<int64_t>(us)) : Micros::max();
            retry.run_at = AddClamped(ctx.now, offset);
          }
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
        if (p.dry_run) {
          r.dry_run = true;
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
