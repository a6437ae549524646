#include "engine/tx_context.h"

#include "engine/webhooks/subscriptions.h"

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
  wrote_deliveries = wrote_deliveries || o.wrote_deliveries;
  for (const auto& [outcome, n] : o.webhook_outcomes) webhook_outcomes[outcome] += n;
  webhooks_disabled += o.webhooks_disabled;
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
void TxContext::CountEvents(const Change& change, const Event& event) {
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
  if (webhooks != nullptr) WebhookEvents(change, event);
}

void TxContext::CountEnqueued(const Job& job) {
  CountEvent(job.queue_name, "enqueued");
  if (webhooks != nullptr) WebhookJobEvent("job.created", job);
}

void TxContext::QueueEvent(const char* event, const std::string& queue,
                           const std::optional<std::string>& reason) {
  if (webhooks != nullptr && webhooks->Wants(event)) {
    webhook_events.push_back(QueueWebhookEvent(event, queue, reason));
  }
}

void TxContext::WebhookJobEvent(const char* event, const Job& job, const JobEventExtras& extras) {
  if (webhooks->Wants(event)) webhook_events.push_back(JobWebhookEvent(event, job, extras));
}

// The webhook events of a change, from the same facts as the metrics above:
// the history entry says what happened, before/after to which attempt.
void TxContext::WebhookEvents(const Change& change, const Event& event) {
  const std::string& type = change.history->event_type;
  const Job& job = change.after;
  if (type == "processing") {
    WebhookJobEvent("job.started", job);
  } else if (type == "completed") {
    WebhookJobEvent("job.completed", job);
  } else if (type == "retry_scheduled" || type == "lease_expired") {
    WebhookJobEvent("job.failed", job, {.will_retry = true});
  } else if (type == "deadlettered") {
    // An attempt that failed for good is a failure too; a deadline sweep
    // dead-letters jobs that were not running, which failed no attempt.
    if (change.before.status == JobStatus::kProcessing) {
      WebhookJobEvent("job.failed", job, {.will_retry = false});
    }
    WebhookJobEvent("job.deadlettered", job);
  } else if (type == "retried") {
    // Only a Retry writes "retried"; the event says who asked for it.
    WebhookJobEvent("job.retried", job, {.source = std::get<event::Retry>(event).source});
  } else if (type == "cancelled") {
    WebhookJobEvent("job.cancelled", job);
  }
}

}  // namespace redrive::engine
