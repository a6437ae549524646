#include "core/webhook_event.h"

#include "core/json_text.h"
#include "core/time_format.h"
#include "core/utf8.h"

namespace redrive {
namespace {

std::string OptStringJson(const std::optional<std::string>& s) {
  return s ? JsonQuote(*s) : "null";
}

std::string TagsJson(const Tags& tags) {
  JsonObjectText out;
  for (const auto& [k, v] : tags) out.Str(k, v);
  return out.Build();
}

// Spooled's job event data (job_id, queue_name, status; "error" on
// job.failed) plus Redrive's summary of the job.
std::string JobDataJson(std::string_view name, const Job& job, const JobEventExtras& extras) {
  JsonObjectText d;
  d.Str("job_id", job.id)
      .Str("queue_name", job.queue_name)
      .Str("status", JobStatusName(job.status))
      .Int("priority", job.priority)
      .Int("retry_count", job.retry_count)
      .Int("max_retries", job.max_retries)
      .Int("attempts", job.attempts)
      .Raw("last_error", OptStringJson(job.last_error));
  const char* reason = DeadReasonName(job.dead_reason);
  d.Raw("dead_reason", *reason ? JsonQuote(reason) : "null");
  d.Raw("tags", TagsJson(job.tags))
      .Str("created_at", FormatTime(job.created_at))
      .Str("updated_at", FormatTime(job.updated_at))
      .Str("scheduled_at", FormatTime(job.scheduled_at));
  if (extras.will_retry) d.Raw("will_retry", *extras.will_retry ? "true" : "false");
  if (extras.source) d.Str("source", *extras.source);
  if (name == "job.failed" || name == "job.deadlettered") {
    d.Raw("error", OptStringJson(job.last_error));
  }
  return d.Build();
}

// What happened, in words: "dead-lettered (max_retries_exceeded)".
std::string WhatHappened(std::string_view name, const Job& job, const JobEventExtras& extras) {
  if (name == "job.started") return "started (attempt " + std::to_string(job.attempts) + ")";
  if (name == "job.failed") {
    return extras.will_retry.value_or(false) ? "failed, will retry" : "failed";
  }
  if (name == "job.deadlettered") {
    return std::string("dead-lettered (") + DeadReasonName(job.dead_reason) + ")";
  }
  if (name == "job.retried") return "retried (" + extras.source.value_or("job_retry") + ")";
  if (name == "job.quarantined") {
    return "quarantined after " + std::to_string(job.crash_count) + " crashes (crash_limit)";
  }
  // job.created, job.completed, job.cancelled: the name says it.
  return std::string(name.substr(name.find('.') + 1));
}

// "Job 0190… in queue emails dead-lettered (max_retries_exceeded): boom".
std::string JobSummary(std::string_view name, const Job& job, const JobEventExtras& extras) {
  std::string line =
      "Job " + job.id + " in queue " + job.queue_name + " " + WhatHappened(name, job, extras);
  if ((name == "job.failed" || name == "job.deadlettered" || name == "job.quarantined") &&
      job.last_error) {
    line += ": " + *job.last_error;
  }
  return line;
}

}  // namespace

WebhookEvent JobWebhookEvent(std::string_view name, const Job& job, const JobEventExtras& extras) {
  return {std::string(name), JobDataJson(name, job, extras), JobSummary(name, job, extras)};
}

WebhookEvent QueueWebhookEvent(std::string_view name, const std::string& queue_name,
                               const std::optional<std::string>& reason) {
  JsonObjectText d;
  d.Str("queue_name", queue_name).Raw("reason", OptStringJson(reason));
  std::string line = "Queue " + queue_name + (name == "queue.paused" ? " paused" : " resumed");
  if (reason) line += ": " + *reason;
  return {std::string(name), d.Build(), std::move(line)};
}

WebhookEvent WorkerWebhookEvent(std::string_view name, const WorkerInfo& worker) {
  JsonObjectText d;
  d.Str("worker_id", worker.id)
      .Str("queue_name", worker.queue_name)
      .Str("hostname", worker.hostname)
      .Raw("worker_type", OptStringJson(worker.worker_type))
      .Raw("version", OptStringJson(worker.version))
      .Str("status", worker.status);
  const bool registered = name == "worker.registered";
  std::string line = "Worker " + worker.id + " on " + worker.hostname +
                     (registered ? " registered for queue " : " deregistered from queue ") +
                     worker.queue_name;
  return {std::string(name), d.Build(), std::move(line)};
}

WebhookEvent ScheduleWebhookEvent(const Schedule& schedule, const ScheduleRun& run) {
  JsonObjectText d;
  d.Str("schedule_id", schedule.id)
      .Str("schedule_name", schedule.name)
      .Str("queue_name", schedule.queue_name)
      .Raw("job_id", OptStringJson(run.job_id))
      .Str("run_id", run.id)
      .Str("kind", ScheduleRunKindName(run.kind))
      .Str("fire_time", FormatTime(run.fire_time))
      .Str("cron_expression", schedule.cron_expression)
      .Str("timezone", schedule.timezone);
  std::string line = "Schedule " + schedule.name + " enqueued job " + run.job_id.value_or("?") +
                     " into " + schedule.queue_name + " (" + ScheduleRunKindName(run.kind) + ")";
  return {"schedule.triggered", d.Build(), std::move(line)};
}

WebhookEvent WorkflowWebhookEvent(WorkflowOutcome outcome, const WorkflowView& workflow) {
  const std::string name(WorkflowWebhookEventName(outcome));
  JsonObjectText d;
  d.Str("workflow_id", workflow.workflow.id)
      .Str("name", workflow.workflow.name)
      .Str("status", WorkflowStatusName(workflow.status()))
      .Int("total_jobs", workflow.counts.total())
      .Int("completed_jobs", workflow.counts.completed)
      .Int("failed_jobs", FailedJobs(workflow.counts))
      .Str("created_at", FormatTime(workflow.workflow.created_at));
  d.Raw("completed_at",
        workflow.finished_at ? JsonQuote(FormatTime(*workflow.finished_at)) : "null");
  std::string line = "Workflow " + workflow.workflow.name + " " +
                     (outcome == WorkflowOutcome::kCompleted ? "completed" : "failed") + " (" +
                     std::to_string(workflow.counts.completed) + "/" +
                     std::to_string(workflow.counts.total()) + " jobs completed)";
  return {name, d.Build(), std::move(line)};
}

WebhookEvent AutoredriveWebhookEvent(const AutoredrivePolicy& policy, const AutoredriveState& state,
                                     const AutoredriveDecision& decision, int redriven) {
  JsonObjectText d;
  d.Str("queue_name", policy.queue_name).Str("fingerprint", policy.fingerprint);
  d.Raw("dead_reason", policy.reason ? JsonQuote(DeadReasonName(*policy.reason)) : "null");
  d.Str("decision", AutoredriveDecisionName(decision.kind))
      .Str("phase", AutoredrivePhaseName(state.phase))
      .Int("wave", state.wave)
      .Int("batch_size", state.batch_target)
      .Int("redriven", redriven)
      .Int("total_revived", state.total_revived)
      .Int("backoffs", state.backoffs)
      .Int("cooldown_seconds", state.current_cooldown.count());
  d.Raw("next_check_at",
        state.next_check_at ? JsonQuote(FormatTime(*state.next_check_at)) : "null");
  d.Str("reason", decision.reason);
  std::string line = "Auto-redrive of queue " + policy.queue_name + " (class " +
                     policy.fingerprint + "): " + AutoredriveDecisionName(decision.kind) + ": " +
                     decision.reason;
  return {kAutoredriveWebhookEvent, d.Build(), std::move(line)};
}

std::string WebhookEnvelope(const std::string& event_id, const WebhookEvent& event,
                            Instant created_at) {
  JsonObjectText e;
  e.Str("id", event_id)
      .Str("event", event.name)
      .Str("created_at", FormatTime(created_at))
      .Raw("data", event.data_json);
  return e.Build();
}

std::string SlackMessage(const WebhookEvent& event) {
  return JsonObjectText().Str("text", event.summary).Build();
}

std::string DiscordMessage(const WebhookEvent& event) {
  constexpr size_t kDiscordContentMax = 2000;  // characters; bytes are at least as many
  return JsonObjectText()
      .Str("content", Utf8Prefix(event.summary, kDiscordContentMax))
      .Str("username", "Redrive")
      .Raw("allowed_mentions", R"({"parse":[]})")
      .Build();
}

std::string TeamsMessage(const WebhookEvent& event) {
  const std::string title = JsonObjectText()
                                .Str("type", "TextBlock")
                                .Str("text", "Redrive: " + event.name)
                                .Str("weight", "Bolder")
                                .Build();
  const std::string text = JsonObjectText()
                               .Str("type", "TextBlock")
                               .Str("text", event.summary)
                               .Raw("wrap", "true")
                               .Build();
  const std::string card = JsonObjectText()
                               .Str("$schema", "http://adaptivecards.io/schemas/adaptive-card.json")
                               .Str("type", "AdaptiveCard")
                               .Str("version", "1.4")
                               .Raw("body", "[" + title + "," + text + "]")
                               .Build();
  const std::string attachment = JsonObjectText()
                                     .Str("contentType", "application/vnd.microsoft.card.adaptive")
                                     .Raw("content", card)
                                     .Build();
  return JsonObjectText().Str("type", "message").Raw("attachments", "[" + attachment + "]").Build();
}

std::string WebhookBody(WebhookFormat format, const std::string& event_id,
                        const WebhookEvent& event, Instant created_at) {
  switch (format) {
    case WebhookFormat::kSlack:
      return SlackMessage(event);
    case WebhookFormat::kDiscord:
      return DiscordMessage(event);
    case WebhookFormat::kTeams:
      return TeamsMessage(event);
    case WebhookFormat::kJson:
      break;
  }
  return WebhookEnvelope(event_id, event, created_at);
}

}  // namespace redrive
