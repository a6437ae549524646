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

// The one place that turns writes into metric and webhook events: the
// outcome table says which.
void TxContext::CountEvents(Outcome outcome, const Job& job, const Event* event) {
  const OutcomeInfo& info = Describe(outcome);
  for (const CountedEvent& c : info.counts) {
    if (c.event == nullptr) break;
    const char* reason = c.by_dead_reason ? DeadReasonName(job.dead_reason) : "";
    effects.job_events[{job.queue_name, c.event, reason}] += 1;
  }
  if (webhooks == nullptr) return;
  for (const EmittedWebhook& emit : info.webhooks) {
    if (emit.event == nullptr) break;
    if (!webhooks->Wants(emit.event)) continue;
    JobEventExtras extras{.will_retry = emit.will_retry};
    if (emit.retry_source) {
      // Only a Retry event has a retry-source outcome; it says who asked.
      extras.source = std::get<event::Retry>(*event).source;
    }
    webhook_events.push_back(JobWebhookEvent(emit.event, job, extras));
  }
}

void TxContext::QueueEvent(QueueOutcome outcome, const std::string& queue,
                           const std::optional<std::string>& reason) {
  const std::string_view name = QueueWebhookEventName(outcome);
  if (webhooks != nullptr && webhooks->Wants(name)) {
    webhook_events.push_back(QueueWebhookEvent(name, queue, reason));
  }
}

}  // namespace redrive::engine
