#include "engine/services/job_sweep.h"

#include <spdlog/spdlog.h>

#include "engine/job_ops.h"

namespace redrive::engine {

JobSweep::JobSweep(const char* duty, Committer& committer, store::Store& store, int batch,
                   Select select, Event event, NextDue next_due)
    : duty_(duty),
      committer_(committer),
      store_(store),
      batch_(batch),
      select_(std::move(select)),
      event_(std::move(event)),
      next_due_(std::move(next_due)) {}

ServiceRun JobSweep::RunOnce(Instant now) {
  ServiceRun run;
  // The run may be re-run (an aborted transaction): it sets, never adds.
  Status st = committer_.RunAndWait([&](store::WriteTx& tx, TxContext& ctx) -> Status {
    ctx.now = now;
    REDRIVE_ASSIGN_OR_RETURN(auto jobs, select_(tx, now, batch_));
    run.more = static_cast<int>(jobs.size()) >= batch_;
    run.changed = 0;
    for (const Job& job : jobs) {
      auto change = ops::ApplyToLoaded(tx, ctx, job, event_);
      if (change.ok()) {
        ++run.changed;
      } else if (change.status().code() != ErrorCode::kConflict) {
        return change.status();
      }
    }
    return Status::Ok();
  });
  if (!st.ok()) {
    spdlog::warn("{}: {}", duty_, st.ToString());
    run.changed = 0;
    run.more = false;
  }
  if (auto tx = store_.BeginRead(); tx.ok()) {
    if (auto next = next_due_(**tx); next.ok()) run.next_run = *next;
  }
  return run;
}

std::unique_ptr<Service> MakeScheduler(Committer& c, store::Store& s, int batch) {
  return std::make_unique<JobSweep>(
      duty::kScheduler, c, s, batch,
      [](store::WriteTx& tx, Instant now, int limit) {
        return tx.SelectDueScheduled(std::nullopt, now, limit);
      },
      event::Promote{}, [](store::ReadTx& tx) { return tx.NextScheduledAt(); });
}

std::unique_ptr<Service> MakeLeaseReaper(Committer& c, store::Store& s, int batch) {
  return std::make_unique<JobSweep>(
      duty::kLeaseReaper, c, s, batch,
      [](store::WriteTx& tx, Instant now, int limit) { return tx.SelectExpiredLeases(now, limit); },
      event::LeaseExpiry{}, [](store::ReadTx& tx) { return tx.NextLeaseExpiry(); });
}

std::unique_ptr<Service> MakeDeadlineSweep(Committer& c, store::Store& s, int batch) {
  return std::make_unique<JobSweep>(
      duty::kDeadlineSweep, c, s, batch,
      [](store::WriteTx& tx, Instant now, int limit) { return tx.SelectPastDeadline(now, limit); },
      event::Deadline{}, [](store::ReadTx& tx) { return tx.NextDeadline(); });
}

}  // namespace redrive::engine
