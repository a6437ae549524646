// `redrive queues list|show|pause|resume|config`.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/output.h"
#include "cli/table.h"
#include "core/time_format.h"
#include "wire/queue_json.h"

namespace redrive::cli {
namespace {

Instant Now() { return SystemClock().Now(); }

std::string RetentionText(const std::optional<std::chrono::seconds>& keep) {
  return keep ? FormatDuration(*keep) : "forever";
}

boost::json::object QueueViewJson(const sdk::QueueView& q) {
  return wire::QueueViewToJson(q.config, q.counts, q.oldest_deadletter_at);
}

std::string StateText(const QueueConfig& c) {
  if (!c.enabled) return "disabled";
  return c.paused ? "paused" : "active";
}

int RunList(CliContext& ctx) {
  auto queues = ctx.client().ListQueues();
  if (!queues.ok()) return ReportError(queues.status());
  if (ctx.flags.json) {
    boost::json::array array;
    for (const auto& q : *queues) array.push_back(QueueViewJson(q));
    PrintJson(array);
    return kExitOk;
  }
  if (queues->empty()) {
    std::cout << "no queues\n";
    return kExitOk;
  }
  Table table({"QUEUE", "STATE", "PENDING", "SCHEDULED", "RUNNING", "DONE", "DEAD", "OLDEST DEAD"});
  for (const auto& q : *queues) {
    const StatusCounts& n = q.counts;
    table.AddRow({q.config.queue_name, StateText(q.config), std::to_string(n.pending),
                  std::to_string(n.scheduled), std::to_string(n.processing),
                  std::to_string(n.completed), std::to_string(n.deadletter),
                  TimeCell(q.oldest_deadletter_at, Now())});
  }
  table.Print(std::cout);
  return kExitOk;
}

void PrintConfig(Details& d, const QueueConfig& c) {
  d.Add("Queue", c.queue_name);
  d.Add("State", StateText(c) + (c.paused_reason ? " (" + *c.paused_reason + ")" : ""));
  d.Add("Max retries", std::to_string(c.max_retries));
  d.Add("Timeout", FormatDuration(std::chrono::seconds(c.default_timeout)));
  d.Add("Backoff", BackoffText(c.backoff));
  d.Add("Keep completed", RetentionText(c.retention.completed));
  d.Add("Keep dead", RetentionText(c.retention.deadletter));
  d.Add("Keep cancelled", RetentionText(c.retention.cancelled));
}

int RunShow(CliContext& ctx, const std::string& name) {
  auto q = ctx.client().GetQueue(name);
  if (!q.ok()) return ReportError(q.status());
  if (ctx.flags.json) {
    PrintJson(QueueViewJson(*q));
    return kExitOk;
  }
  Details d;
  PrintConfig(d, q->config);
  const StatusCounts& n = q->counts;
  d.Add("Jobs", std::to_string(n.pending) + " pending, " + std::to_string(n.scheduled) +
                    " scheduled, " + std::to_string(n.processing) + " processing, " +
                    std::to_string(n.completed) + " completed, " + std::to_string(n.deadletter) +
                    " dead, " + std::to_string(n.cancelled) + " cancelled");
  d.Add("Oldest dead", TimeDetail(q->oldest_deadletter_at, Now()));
  d.Print(std::cout);
  return kExitOk;
}

// Prints a QueueConfig answer (pause, resume, config).
int PrintConfigResult(CliContext& ctx, const Result<QueueConfig>& config, const std::string& verb) {
  if (!config.ok()) return ReportError(config.status());
  if (ctx.flags.json) {
    PrintJson(wire::QueueConfigToJson(*config));
    return kExitOk;
  }
  std::cout << verb << " " << config->queue_name << "\n";
  Details d;
  PrintConfig(d, *config);
  d.Print(std::cout);
  return kExitOk;
}

void AddListShow(CLI::App& queues, CliContext& ctx) {
  auto* list = queues.add_subcommand("list", "List queues with job counts");
  list->footer("Example:\n  redrive queues list");
  ctx.OnRun(list, [&ctx] { return RunList(ctx); });

  auto* show = queues.add_subcommand("show", "Show a queue's configuration and counts");
  auto name = std::make_shared<std::string>();
  show->add_option("QUEUE", *name, "Queue name")->required();
  show->footer("Example:\n  redrive queues show emails");
  ctx.OnRun(show, [&ctx, name] { return RunShow(ctx, *name); });
}

void AddPauseResume(CLI::App& queues, CliContext& ctx) {
  auto* pause = queues.add_subcommand("pause", "Stop handing out jobs (enqueues still accepted)");
  auto name = std::make_shared<std::string>();
  auto reason = std::make_shared<std::string>();
  pause->add_option("QUEUE", *name, "Queue name")->required();
  pause->add_option("--reason", *reason, "Why, shown in queues show (and the audit log)");
  pause->footer("Example:\n  redrive queues pause billing --reason 'card processor maintenance'");
  ctx.OnRun(pause, [&ctx, name, reason] {
    std::optional<std::string> why;
    if (!reason->empty()) why = *reason;
    // One reason for both places unless --why says otherwise.
    if (ctx.flags.reason.empty()) ctx.flags.reason = *reason;
    return PrintConfigResult(ctx, ctx.client().PauseQueue(*name, why), "paused");
  });

  auto* resume = queues.add_subcommand("resume", "Hand out jobs again");
  auto resume_name = std::make_shared<std::string>();
  resume->add_option("QUEUE", *resume_name, "Queue name")->required();
  resume->footer("Example:\n  redrive queues resume billing");
  ctx.OnRun(resume, [&ctx, resume_name] {
    return PrintConfigResult(ctx, ctx.client().ResumeQueue(*resume_name), "resumed");
  });
}

struct ConfigFlags {
  std::string name;
  std::optional<int> max_retries;
  std::string timeout, backoff_base, backoff_max, jitter, retain_completed, retain_dead,
      retain_cancelled;
};

// "forever" keeps jobs forever (null on the wire); else a duration.
std::string CheckRetention(const std::string& text) {
  return text == "forever" ? "" : CheckDuration(text);
}

std::optional<std::optional<std::chrono::seconds>> Retention(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (text == "forever") return std::optional<std::chrono::seconds>();
  return std::chrono::seconds(CeilSeconds(*ParseDuration(text)));
}

sdk::QueueConfigUpdate MakeUpdate(const ConfigFlags& f, const QueueConfig& current) {
  sdk::QueueConfigUpdate update;
  update.max_retries = f.max_retries;
  if (!f.timeout.empty())
    update.default_timeout = static_cast<int>(CeilSeconds(*ParseDuration(f.timeout)));
  // The server replaces the backoff policy whole, so unchanged members keep
  // their current values rather than falling back to the defaults.
  if (!f.backoff_base.empty() || !f.backoff_max.empty() || !f.jitter.empty()) {
    BackoffPolicy b = current.backoff;
    if (!f.backoff_base.empty()) b.base = *ParseDuration(f.backoff_base);
    if (!f.backoff_max.empty()) b.max = *ParseDuration(f.backoff_max);
    if (!f.jitter.empty()) b.jitter = *ParseDuration(f.jitter);
    update.backoff = b;
  }
  update.retention_completed = Retention(f.retain_completed);
  update.retention_deadletter = Retention(f.retain_dead);
  update.retention_cancelled = Retention(f.retain_cancelled);
  return update;
}

int RunConfig(CliContext& ctx, const ConfigFlags& f) {
  QueueConfig current;  // defaults, for a queue that does not exist yet
  auto existing = ctx.client().GetQueue(f.name);
  if (existing.ok())
    current = existing->config;
  else if (existing.status().code() != ErrorCode::kNotFound)
    return ReportError(existing.status());
  return PrintConfigResult(ctx, ctx.client().ConfigureQueue(f.name, MakeUpdate(f, current)),
                           "configured");
}

void AddConfig(CLI::App& queues, CliContext& ctx) {
  auto* cmd = queues.add_subcommand("config", "Change (or create) a queue's defaults");
  auto f = std::make_shared<ConfigFlags>();
  cmd->add_option("QUEUE", f->name, "Queue name")->required();
  cmd->add_option("--max-retries", f->max_retries, "Default max retries of new jobs (0..100)");
  cmd->add_option("--timeout", f->timeout, "Default per-attempt timeout of new jobs (5m)")
      ->check(CheckDuration);
  cmd->add_option("--backoff-base", f->backoff_base, "First retry delay (1s; 0 retries at once)")
      ->check(CheckDuration);
  cmd->add_option("--backoff-max", f->backoff_max, "Longest retry delay (1m)")
      ->check(CheckDuration);
  cmd->add_option("--jitter", f->jitter, "Random extra delay, up to this (500ms)")
      ->check(CheckDuration);
  cmd->add_option("--retain-completed", f->retain_completed,
                  "Keep completed jobs this long, or forever")
      ->check(CheckRetention);
  cmd->add_option("--retain-dead", f->retain_dead, "Keep dead jobs this long, or forever")
      ->check(CheckRetention);
  cmd->add_option("--retain-cancelled", f->retain_cancelled,
                  "Keep cancelled jobs this long, or forever")
      ->check(CheckRetention);
  cmd->footer(
      "Settings apply to jobs enqueued afterwards (the policy is copied onto each job).\n"
      "Examples:\n"
      "  redrive queues config emails --max-retries 5 --timeout 2m\n"
      "  redrive queues config webhooks --backoff-base 1s --backoff-max 1m --jitter 500ms\n"
      "  redrive queues config emails --retain-completed 1d --retain-dead 30d");
  ctx.OnRun(cmd, [&ctx, f] { return RunConfig(ctx, *f); });
}

}  // namespace

void AddQueuesCommand(CLI::App& app, CliContext& ctx) {
  auto* queues = app.add_subcommand("queues", "List, inspect, pause, resume and configure queues");
  queues->require_subcommand(1);
  AddListShow(*queues, ctx);
  AddPauseResume(*queues, ctx);
  AddConfig(*queues, ctx);
}

}  // namespace redrive::cli
