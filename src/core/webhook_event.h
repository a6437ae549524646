// The events outgoing webhooks carry, and the bodies POSTed for them. An
// event's `data` is a job summary (never the payload or result: they may be
// large or sensitive, and a receiver that needs them can GET the job) or, for
// queue events, the queue and reason. Pure text building; no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/autoredrive.h"
#include "core/clock.h"
#include "core/job.h"
#include "core/outcome.h"
#include "core/queue.h"
#include "core/schedule.h"
#include "core/webhook.h"
#include "core/workflow.h"

namespace redrive {

struct WebhookEvent {
  std::string name;       // "job.failed", ...
  std::string data_json;  // the envelope's "data" object
  std::string summary;    // one human line, for the chat formats (slack, discord, teams)
};

// Details some job events add to the summary in `data`.
struct JobEventExtras {
  std::optional<bool> will_retry;     // job.failed
  std::optional<std::string> source;  // job.retried: "job_retry" or "dlq_retry"
};

WebhookEvent JobWebhookEvent(std::string_view name, const Job& job,
                             const JobEventExtras& extras = {});
WebhookEvent QueueWebhookEvent(std::string_view name, const std::string& queue_name,
                               const std::optional<std::string>& reason);

// worker.registered / worker.deregistered: data {worker_id, queue_name,
// hostname, worker_type, version, status}.
WebhookEvent WorkerWebhookEvent(std::string_view name, const WorkerInfo& worker);

// schedule.triggered: a schedule enqueued a job (on time, backfilled, or
// triggered by hand). data {schedule_id, schedule_name, queue_name, job_id,
// run_id, kind, fire_time, cron_expression, timezone}.
WebhookEvent ScheduleWebhookEvent(const Schedule& schedule, const ScheduleRun& run);

// workflow.completed / workflow.failed: a workflow's derived status became
// completed or failed. data {workflow_id, name, status, total_jobs,
// completed_jobs, failed_jobs, created_at, completed_at}.
WebhookEvent WorkflowWebhookEvent(WorkflowOutcome outcome, const WorkflowView& workflow);

// {"id": event_id, "event", "created_at", "data"}: the standard body.
std::string WebhookEnvelope(const std::string& event_id, const WebhookEvent& event,
                            Instant created_at);
// {"text": summary}: the body for a webhook of format slack.
std::string SlackMessage(const WebhookEvent& event);
// {"content": summary, "username": "Redrive", "allowed_mentions": {"parse": []}}:
// format discord. The summary is cut to Discord's 2,000 characters, and
// mentions are off, so an error text saying "@everyone" pings nobody.
std::string DiscordMessage(const WebhookEvent& event);
// A message with one Adaptive Card (the event's name in bold, then the
// summary): format teams, what a Teams "workflow" webhook posts to a channel.
std::string TeamsMessage(const WebhookEvent& event);

// dlq.autoredrive: an auto-redrive policy changed phase (core/autoredrive.h).
// data {queue_name, fingerprint, dead_reason, decision, phase, wave,
// batch_size, redriven, total_revived, backoffs, cooldown_seconds,
// next_check_at, reason}.
inline constexpr char kAutoredriveWebhookEvent[] = "dlq.autoredrive";
WebhookEvent AutoredriveWebhookEvent(const AutoredrivePolicy& policy, const AutoredriveState& state,
                                     const AutoredriveDecision& decision, int redriven);

// The body `webhook` gets for `event`.
std::string WebhookBody(WebhookFormat format, const std::string& event_id,
                        const WebhookEvent& event, Instant created_at);

}  // namespace redrive
