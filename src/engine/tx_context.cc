#include "engine/tx_context.h"

#include "engine/dependency_release.h"

namespace redrive::engine {

namespace {
void Earliest(std::optional<Instant>& slot, std::optional<Instant> t) {
  if (t && (!slot || *t < *slot)) slot = t;
}
}  // namespace

void TxEffects::Merge(const TxEffects& o) {
  for (const auto& [q, n] : o.became_claimable) became_claimable[q] += n;
  for (const auto& [q, n] : o.claimed) claimed[q] += n;
  for (const auto& [q, b] : o.wake_all) wake_all[q] = wake_all[q] || b;
  Earliest(earliest_scheduled, o.earliest_scheduled);
  Earliest(earliest_lease_expiry, o.earliest_lease_expiry);
  Earliest(earliest_deadline, o.earliest_deadline);
  for (const auto& [key, n] : o.job_events) job_events[key] += n;
  for (const auto& [queue, t] : o.job_times) {
    job_times[queue].waiting += t.waiting;
    job_times[queue].processing += t.processing;
  }
  wrote_deliveries = wrote_deliveries || o.wrote_deliveries;
  for (const auto& [outcome, n] : o.webhook_outcomes) webhook_outcomes[outcome] += n;
  webhooks_disabled += o.webhooks_disabled;
  for (const auto& [what, n] : o.schedule_runs) schedule_runs[what] += n;
  for (const auto& [queue, n] : o.autoredrive_jobs) autoredrive_jobs[queue] += n;
  for (const auto& [what, n] : o.autoredrive_decisions) autoredrive_decisions[what] += n;
  realtime_events.insert(realtime_events.end(), o.realtime_events.begin(), o.realtime_events.end());
}

void TxContext::Track(const Job& job) {
  switch (job.status) {
    case JobStatus::kPending:
      effects.became_claimable[job.queue_name] += 1;
      break;
    case JobStatus::kScheduled:
      Earliest(effects.earliest_scheduled, job.scheduled_at);
      break;
    case JobStatus::kProcessing:
      Earliest(effects.earliest_lease_expiry, job.lease_expires_at);
      break;
    default:
      break;
  }
  if ((job.status == JobStatus::kPending || job.status == JobStatus::kScheduled)) {
    Earliest(effects.earliest_deadline, job.expires_at);
  }
}

Result<Change> TxContext::Apply(const Job& job, const Event& event) {
  Result<Change> change = redrive::Apply(job, event, now, random);
  if (change.ok() && change->history) change->history->node_id = node_id;
  return change;
}

NewJob TxContext::MakeNewJob(const NewJobParams& params, const QueueConfig& queue) {
  NewJob made = redrive::MakeNewJob(params, queue, now, random, job_ids);
  made.created.node_id = node_id;
  return made;
}

Status TxContext::Wrote(store::WriteTx& tx, const JobWrite& write) {
  for (WriteHook* hook : hooks) REDRIVE_RETURN_IF_ERROR(hook->OnJob(tx, *this, write));
  return ops::AfterJobWrite(tx, *this, write);
}

Status TxContext::Wrote(store::WriteTx& tx, const WorkflowWrite& write) {
  for (WriteHook* hook : hooks) REDRIVE_RETURN_IF_ERROR(hook->OnWorkflow(tx, *this, write));
  return Status::Ok();
}

Status TxContext::Wrote(store::WriteTx& tx, const AutoredriveWrite& write) {
  for (WriteHook* hook : hooks) REDRIVE_RETURN_IF_ERROR(hook->OnAutoredrive(tx, *this, write));
  return Status::Ok();
}

Status TxContext::Wrote(store::WriteTx& tx, const QueueWrite& write) {
  for (WriteHook* hook : hooks) REDRIVE_RETURN_IF_ERROR(hook->OnQueue(tx, *this, write));
  return Status::Ok();
}

Status TxContext::Wrote(store::WriteTx& tx, const ScheduleWrite& write) {
  for (WriteHook* hook : hooks) REDRIVE_RETURN_IF_ERROR(hook->OnSchedule(tx, *this, write));
  return Status::Ok();
}

Status TxContext::Wrote(store::WriteTx& tx, const WorkerWrite& write) {
  for (WriteHook* hook : hooks) REDRIVE_RETURN_IF_ERROR(hook->OnWorker(tx, *this, write));
  return Status::Ok();
}

}  // namespace redrive::engine
