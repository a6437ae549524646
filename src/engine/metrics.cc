#include "engine/metrics.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

namespace redrive::engine {

namespace {

struct CounterSpec {
  const char* event;  // a TxEffects::job_events event
  const char* name;
  const char* help;
};

// One counter family per job event; deadlettered also carries the reason.
constexpr CounterSpec kJobCounters[] = {
    {"enqueued", "redrive_jobs_enqueued_total",
     "Jobs created by enqueue (idempotent replays excluded)."},
    {"claimed", "redrive_jobs_claimed_total",
     "Jobs handed to a worker under a lease (attempts started)."},
    {"completed", "redrive_jobs_completed_total", "Jobs completed successfully."},
    {"failed", "redrive_job_failures_total",
     "Attempts that failed: fail calls and lost leases or timed-out attempts."},
    {"retry_scheduled", "redrive_retries_scheduled_total",
     "Failed attempts that scheduled a retry."},
    {"redriven", "redrive_jobs_redriven_total", "Dead-lettered jobs sent back to run (DLQ retry)."},
    {"lease_expired", "redrive_lease_expiries_total",
     "Attempts that ended because their lease expired or they timed out."},
    {"quarantined", "redrive_jobs_quarantined_total",
     "Jobs quarantined: their attempts lost the lease crash_limit times."},
    {"quarantine_released", "redrive_quarantine_releases_total",
     "Quarantined jobs released back to pending by an operator."},
    {"snoozed", "redrive_jobs_snoozed_total",
     "Attempts a worker put off with a snooze (no retry spent)."},
    {"unblocked", "redrive_jobs_unblocked_total",
     "Blocked jobs whose dependencies were met (workflows), made claimable."},
    {"blocked", "redrive_jobs_blocked_total",
     "Waiting jobs sent back to blocked because dependencies were added to them."},
    {"moved", "redrive_jobs_moved_total",
     "Waiting, dead or quarantined jobs an operator moved to another queue (move operations)."},
};
// One counter per TxEffects::schedule_runs key.
struct ScheduleCounterSpec {
  const char* what;
  const char* name;
  const char* help;
};
constexpr ScheduleCounterSpec kScheduleCounters[] = {
    {"fired", "redrive_schedules_fired_total", "Schedule runs that enqueued a job."},
    {"missed", "redrive_schedules_missed_total",
     "Schedule fire times that passed while the schedule could not fire (server down, duty "
     "lagging), whatever its missed_run_policy then did."},
    {"skipped", "redrive_schedules_skipped_total",
     "Schedule runs skipped because the previous job was still running (skip_if_running)."},
};
constexpr const char* kDeadletteredName = "redrive_jobs_deadlettered_total";
constexpr const char* kWaitingName = "redrive_job_wait_seconds_total";
constexpr const char* kProcessingName = "redrive_job_processing_seconds_total";

double Seconds(std::chrono::microseconds d) { return static_cast<double>(d.count()) / 1e6; }
std::chrono::microseconds Micros(double seconds) {
  return std::chrono::microseconds(std::llround(seconds * 1e6));
}

// Never negative: a claim before its due time, or a completion before its
// claim, can only come from clocks of two nodes that disagree.
std::chrono::microseconds Between(std::optional<Instant> from, std::optional<Instant> to) {
  if (!from || !to || *to < *from) return std::chrono::microseconds(0);
  return std::chrono::duration_cast<std::chrono::microseconds>(*to - *from);
}

}  // namespace

EngineMetrics::EngineMetrics() {
  for (const CounterSpec& c : kJobCounters) registry_.AddCounter(c.name, c.help, {"queue"});
  registry_.AddCounter(kDeadletteredName, "Jobs moved to the dead-letter queue, by reason.",
                       {"queue", "reason"});
  registry_.AddCounter(kWaitingName,
                       "Seconds the claimed jobs waited from due to claimed (divide by "
                       "redrive_jobs_claimed_total for the average).",
                       {"queue"});
  registry_.AddCounter(kProcessingName,
                       "Seconds the completed attempts took from claim to complete (divide by "
                       "redrive_jobs_completed_total for the average).",
                       {"queue"});
  registry_.AddCounter("redrive_commits_total",
                       "Write transactions committed (group commits on SQLite).", {});
  registry_.AddCounter("redrive_webhook_deliveries_total",
                       "Webhook delivery attempts by outcome: delivered (2xx), failed (will be "
                       "retried), gave_up (the last attempt failed).",
                       {"outcome"});
  registry_.AddCounter("redrive_webhooks_disabled_total",
                       "Webhooks disabled after 20 consecutive failed deliveries.", {});
  // Shown at 0 from the start, so alerts on increase() see the first one.
  for (const char* outcome : {"delivered", "failed", "gave_up"}) {
    registry_.Add("redrive_webhook_deliveries_total", {outcome}, 0);
  }
  registry_.Add("redrive_webhooks_disabled_total", {}, 0);
  for (const ScheduleCounterSpec& c : kScheduleCounters) {
    registry_.AddCounter(c.name, c.help, {});
    registry_.Add(c.name, {}, 0);
  }
  registry_.AddCounter("redrive_autoredrive_jobs_total",
                       "Dead-lettered jobs auto-redrive sent back to run.", {"queue"});
  registry_.AddCounter("redrive_autoredrive_decisions_total",
                       "Auto-redrive decisions that changed a policy's phase, by outcome: "
                       "canary_started, wave_started, backed_off, finished, disabled.",
                       {"outcome"});
  for (const char* outcome : {"canary_started", "wave_started", "backed_off", "finished"}) {
    registry_.Add("redrive_autoredrive_decisions_total", {outcome}, 0);
  }
  registry_.AddHistogram("redrive_commit_batch_size",
                         "Requests carried by one store transaction (a group commit on SQLite; "
                         "always 1 on PostgreSQL, where each request commits alone).",
                         {}, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048});
}

void EngineMetrics::OnCommitted(const TxEffects& effects, size_t batch_size) {
  registry_.Add("redrive_commits_total", {});
  registry_.Observe("redrive_commit_batch_size", {}, static_cast<double>(batch_size));
  for (const auto& [outcome, n] : effects.webhook_outcomes) {
    registry_.Add("redrive_webhook_deliveries_total", {outcome}, static_cast<double>(n));
  }
  if (effects.webhooks_disabled > 0) {
    registry_.Add("redrive_webhooks_disabled_total", {},
                  static_cast<double>(effects.webhooks_disabled));
  }
  for (const auto& [what, n] : effects.schedule_runs) {
    for (const ScheduleCounterSpec& c : kScheduleCounters) {
      if (what == c.what) registry_.Add(c.name, {}, static_cast<double>(n));
    }
  }
  for (const auto& [queue, n] : effects.autoredrive_jobs) {
    registry_.Add("redrive_autoredrive_jobs_total", {queue}, static_cast<double>(n));
  }
  for (const auto& [outcome, n] : effects.autoredrive_decisions) {
    registry_.Add("redrive_autoredrive_decisions_total", {outcome}, static_cast<double>(n));
  }
  for (const auto& [queue, t] : effects.job_times) {
    registry_.Add(kWaitingName, {queue}, Seconds(t.waiting));
    registry_.Add(kProcessingName, {queue}, Seconds(t.processing));
  }
  for (const auto& [key, n] : effects.job_events) {
    const auto& [queue, event, reason] = key;
    if (event == "deadlettered") {
      registry_.Add(kDeadletteredName, {queue, reason}, static_cast<double>(n));
      continue;
    }
    for (const CounterSpec& c : kJobCounters) {
      if (event == c.event) registry_.Add(c.name, {queue}, static_cast<double>(n));
    }
  }
}

Status JobEventCounter::OnJob(store::WriteTx&, TxContext& ctx, const JobWrite& write) {
  for (const CountedEvent& c : Describe(write.outcome).counts) {
    if (c.event == nullptr) break;
    const char* reason = c.by_dead_reason ? DeadReasonName(write.job.dead_reason) : "";
    ctx.effects.job_events[{write.job.queue_name, c.event, reason}] += 1;
    const std::string_view event = c.event;
    if (event == "claimed") {
      ctx.effects.job_times[write.job.queue_name].waiting +=
          Between(write.job.scheduled_at, write.job.started_at);
    } else if (event == "completed") {
      ctx.effects.job_times[write.job.queue_name].processing +=
          Between(write.job.started_at, write.job.completed_at);
    }
  }
  return Status::Ok();
}

// Read from the counters themselves, so the chart and /metrics never disagree.
std::map<std::string, JobCounts> EngineMetrics::Totals() const {
  static constexpr std::pair<const char*, long long JobCounts::*> kCharted[] = {
      {"redrive_jobs_enqueued_total", &JobCounts::enqueued},
      {"redrive_jobs_completed_total", &JobCounts::completed},
      {"redrive_job_failures_total", &JobCounts::failed},
      {kDeadletteredName, &JobCounts::deadlettered},  // summed over reasons
      {"redrive_jobs_claimed_total", &JobCounts::claimed},
  };
  static constexpr std::pair<const char*, std::chrono::microseconds JobCounts::*> kTimes[] = {
      {kWaitingName, &JobCounts::waiting},
      {kProcessingName, &JobCounts::processing},
  };
  std::map<std::string, JobCounts> totals;
  for (const auto& [name, field] : kCharted) {
    for (const auto& [labels, value] : registry_.Values(name)) {
      totals[labels[0]].*field += static_cast<long long>(value);  // labels[0]: the queue
    }
  }
  for (const auto& [name, field] : kTimes) {
    for (const auto& [labels, value] : registry_.Values(name)) {
      totals[labels[0]].*field += Micros(value);
    }
  }
  return totals;
}

std::string EngineMetrics::Render() const { return registry_.Render(); }

std::string RenderQueueGauges(const std::vector<QueueView>& queues, Instant now) {
  MetricsRegistry gauges;
  gauges.AddGauge("redrive_jobs", "Jobs in the store, by queue and status.", {"queue", "status"});
  gauges.AddGauge("redrive_dlq_jobs", "Jobs in the dead-letter queue.", {"queue"});
  gauges.AddGauge("redrive_dlq_oldest_age_seconds",
                  "Age of the oldest dead-lettered job (0 when the DLQ is empty).", {"queue"});
  for (const QueueView& q : queues) {
    const std::string& name = q.config.queue_name;
    StatusCounts counts = q.counts;
    for (JobStatus s : kAllStatuses) {
      gauges.Set("redrive_jobs", {name, JobStatusName(s)}, static_cast<double>(counts.of(s)));
    }
    gauges.Set("redrive_dlq_jobs", {name}, static_cast<double>(q.counts.deadletter));
    double age = 0;
    if (q.oldest_deadletter_at) {
      age = std::max(0.0, std::chrono::duration<double>(now - *q.oldest_deadletter_at).count());
    }
    gauges.Set("redrive_dlq_oldest_age_seconds", {name}, age);
  }
  return gauges.Render();
}

std::string RenderLongPollGauge(const std::map<std::string, size_t>& parked_by_queue) {
  MetricsRegistry gauges;
  gauges.AddGauge("redrive_claims_waiting",
                  "Long-poll claims parked, waiting for a job or for their wait to end.",
                  {"queue"});
  for (const auto& [queue, n] : parked_by_queue) {
    gauges.Set("redrive_claims_waiting", {queue}, static_cast<double>(n));
  }
  return gauges.Render();
}

}  // namespace redrive::engine
