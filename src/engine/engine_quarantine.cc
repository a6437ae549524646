// Crashes and quarantine: a worker's snooze, and the operator's release of
// quarantined jobs (one, or a selection).
#include "engine/engine.h"
#include "engine/engine_impl.h"
#include "engine/job_ops.h"

namespace redrive::engine {

using store::WriteTx;

void Engine::Snooze(SnoozeParams p, Callback<Job> done) {
  impl_->Write<Job>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<Job> {
        REDRIVE_ASSIGN_OR_RETURN(
            Change c, ops::ApplyToJob(tx, ctx, p.job_id,
                                      event::Snooze{p.worker_id, p.lease_id, p.delay}, p.scope));
        return std::move(c.after);
      },
      std::move(done));
}

void Engine::ReleaseQuarantine(ReleaseParams p, Callback<Job> done) {
  impl_->Write<Job>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<Job> {
        REDRIVE_RETURN_IF_ERROR(ops::EnsureTargetQueue(tx, ctx, p.target_queue));
        REDRIVE_ASSIGN_OR_RETURN(
            Change c,
            ops::ApplyToJob(tx, ctx, p.job_id, event::ReleaseQuarantine{p.budget, p.target_queue}));
        return std::move(c.after);
      },
      std::move(done));
}

namespace {

// The quarantined jobs `p` selects, at most p.limit. Named jobs that are
// unknown or not quarantined are left out.
Result<std::vector<Job>> SelectQuarantined(WriteTx& tx, const BulkReleaseParams& p) {
  std::vector<Job> jobs;
  if (!p.job_ids.empty()) {
    REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> named, tx.GetJobs(p.job_ids));
    for (Job& j : named) {
      if (j.status == JobStatus::kQuarantined) jobs.push_back(std::move(j));
    }
    return jobs;
  }
  store::JobFilter f;
  f.status = JobStatus::kQuarantined;
  f.queue_name = p.queue_name;
  f.tag = p.tag;
  f.fingerprint = p.fingerprint;
  f.limit = p.limit;
  return tx.ListJobs(f, false);
}

}  // namespace

void Engine::ReleaseQuarantined(BulkReleaseParams p, Callback<BulkReleaseResult> done) {
  impl_->Write<BulkReleaseResult>(
      [p = std::move(p)](WriteTx& tx, TxContext& ctx) -> Result<BulkReleaseResult> {
        REDRIVE_ASSIGN_OR_RETURN(std::vector<Job> jobs, SelectQuarantined(tx, p));
        BulkReleaseResult r;
        r.dry_run = p.dry_run;
        r.selected_count = static_cast<long long>(jobs.size());
        if (p.dry_run) return r;
        if (!jobs.empty()) REDRIVE_RETURN_IF_ERROR(ops::EnsureTargetQueue(tx, ctx, p.target_queue));
        // A job another request changed meanwhile is skipped (its guard fails).
        REDRIVE_ASSIGN_OR_RETURN(std::vector<Change> changes,
                                 ops::ApplyToLoadedBatch(tx, ctx, jobs, [&p](const Job&) -> Event {
                                   return event::ReleaseQuarantine{p.budget, p.target_queue};
                                 }));
        r.released_ids.reserve(changes.size());
        for (const Change& c : changes) r.released_ids.push_back(c.after.id);
        return r;
      },
      std::move(done));
}

}  // namespace redrive::engine
