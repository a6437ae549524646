#include "engine/tx_context.h"

namespace redrive::engine {

namespace {
void Earliest(std::optional<Instant>& slot, std::optional<Instant> t) {
  if (t && (!slot || *t < *slot)) slot = t;
}
}  // namespace

void TxEffects::Merge(const TxEffects& o) {
  for (const auto& [q, n] : o.became_claimable) became_claimable[q] += n;
  for (const auto& [q, b] : o.wake_all) wake_all[q] = wake_all[q] || b;
  Earliest(earliest_scheduled, o.earliest_scheduled);
  Earliest(earliest_lease_expiry, o.earliest_lease_expiry);
  Earliest(earliest_deadline, o.earliest_deadline);
  for (const auto& [key, n] : o.job_events) job_events[key] += n;
}

bool TxEffects::empty() const {
  return became_claimable.empty() && wake_all.empty() && !earliest_scheduled &&
         !earliest_lease_expiry && !earliest_deadline && job_events.empty();
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

void TxContext::CountEvent(const std::string& queue, const char* event, std::string reason) {
  effects.job_events[{queue, event, std::move(reason)}] += 1;
}

// The one place that turns state changes into metric events: the history
// entry says what happened, before/after say to which attempt.
void TxContext::CountEvents(const Change& change) {
  if (!change.history) return;
  const std::string& type = change.history->event_type;
  const std::string& queue = change.after.queue_name;
  const bool was_running = change.before.status == JobStatus::kProcessing;
  if (type == "processing") {
    CountEvent(queue, "claimed");
  } else if (type == "completed") {
    CountEvent(queue, "completed");
  } else if (type == "retry_scheduled" || type == "lease_expired") {
    CountEvent(queue, "failed");
    CountEvent(queue, "retry_scheduled");
  } else if (type == "deadlettered") {
    // A deadline sweep dead-letters jobs that never ran: not a failed attempt.
    if (was_running) CountEvent(queue, "failed");
    CountEvent(queue, "deadlettered", DeadReasonName(change.after.dead_reason));
  } else if (type == "retried" && change.before.status == JobStatus::kDeadletter) {
    CountEvent(queue, "redriven");
  }
  if (change.after.lease_expiries > change.before.lease_expiries) {
    CountEvent(queue, "lease_expired");
  }
}

}  // namespace redrive::engine
