// `redrive jobs list|get|history|cancel|retry|priority`: look at and act on
// single jobs. Each action makes one SDK call and prints its answer.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/job_views.h"
#include "cli/output.h"
#include "wire/job_json.h"

namespace redrive::cli {
namespace {

Instant Now() { return SystemClock().Now(); }

std::string CheckStatus(const std::string& text) {
  return ParseJobStatus(text) ? "" : "'" + text + "' is not a status (" + JobStatusNames() + ")";
}

struct ListFlags {
  std::string queue, status, tag;
  std::optional<int> limit, offset;
};

int RunList(CliContext& ctx, const ListFlags& f) {
  sdk::ListJobsFilter filter;
  if (!f.queue.empty()) filter.queue_name = f.queue;
  if (!f.status.empty()) filter.status = ParseJobStatus(f.status);
  if (!f.tag.empty()) filter.tag = f.tag;
  filter.limit = f.limit;
  filter.offset = f.offset;
  auto jobs = ctx.client().ListJobs(filter);
  if (!jobs.ok()) return ReportError(jobs.status());
  if (ctx.flags.json) {
    PrintJobSummariesJson(*jobs);
  } else if (jobs->empty()) {
    std::cout << "no jobs\n";
  } else {
    PrintJobTable(std::cout, *jobs, Now());
  }
  return kExitOk;
}

void AddList(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand("list", "List jobs, newest first");
  auto f = std::make_shared<ListFlags>();
  cmd->add_option("--queue,-q", f->queue, "Only this queue");
  cmd->add_option("--status,-s", f->status, "Only this status")->check(CheckStatus);
  cmd->add_option("--tag", f->tag, "Only jobs with this tag: key=value, or key for any value");
  cmd->add_option("--limit,-n", f->limit, "At most this many (1..100, default 50)");
  cmd->add_option("--offset", f->offset, "Skip this many");
  cmd->footer(
      "Examples:\n"
      "  redrive jobs list --queue emails --status pending\n"
      "  redrive jobs list --tag tenant=acme --limit 10 --json | jq -r '.[].id'");
  ctx.OnRun(cmd, [&ctx, f] { return RunList(ctx, *f); });
}

void AddGet(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand("get", "Show one job: status, payload, result, last error");
  auto id = std::make_shared<std::string>();
  cmd->add_option("ID", *id, "Job id")->required();
  cmd->footer("Example:\n  redrive jobs get 01a227b1-17ac-70b2-8612-af0bc51bf36f");
  ctx.OnRun(cmd, [&ctx, id] {
    auto job = ctx.client().GetJob(*id);
    if (!job.ok()) return ReportError(job.status());
    if (ctx.flags.json)
      PrintJson(wire::JobToJson(*job));
    else
      PrintJobDetail(std::cout, *job, Now());
    return kExitOk;
  });
}

void AddHistory(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand("history", "Show a job's history, oldest first");
  auto id = std::make_shared<std::string>();
  cmd->add_option("ID", *id, "Job id")->required();
  cmd->footer("Example:\n  redrive jobs history 01a227b1-17ac-70b2-8612-af0bc51bf36f");
  ctx.OnRun(cmd, [&ctx, id] {
    auto history = ctx.client().History(*id);
    if (!history.ok()) return ReportError(history.status());
    if (ctx.flags.json)
      PrintHistoryJson(*history);
    else
      PrintHistory(std::cout, *history, Now());
    return kExitOk;
  });
}

void AddCancel(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand("cancel", "Cancel a pending, scheduled or processing job");
  auto id = std::make_shared<std::string>();
  cmd->add_option("ID", *id, "Job id")->required();
  cmd->footer("Example:\n  redrive jobs cancel 01a227b1-17ac-70b2-8612-af0bc51bf36f");
  ctx.OnRun(cmd, [&ctx, id] {
    Status st = ctx.client().Cancel(*id);
    if (!st.ok()) return ReportError(st);
    if (ctx.flags.json)
      PrintJson({{"id", *id}, {"cancelled", true}});
    else
      std::cout << "cancelled " << *id << "\n";
    return kExitOk;
  });
}

struct RetryFlags {
  std::string id, expires_in;
};

int RunRetry(CliContext& ctx, const RetryFlags& f) {
  std::optional<Instant> expires_at;
  if (!f.expires_in.empty()) expires_at = Now() + *ParseDuration(f.expires_in);
  auto job = ctx.client().Retry(f.id, expires_at);
  if (!job.ok()) return ReportError(job.status());
  if (ctx.flags.json)
    PrintJson(wire::JobToJson(*job));
  else
    std::cout << "retried " << job->id << ": now " << JobStatusName(job->status) << "\n";
  return kExitOk;
}

void AddRetry(CLI::App& jobs, CliContext& ctx) {
  auto* cmd =
      jobs.add_subcommand("retry", "Redrive a dead or cancelled job (due now, retries reset)");
  auto f = std::make_shared<RetryFlags>();
  cmd->add_option("ID", f->id, "Job id")->required();
  cmd->add_option("--expires-in", f->expires_in, "New deadline, from now (30s, 1h, 2d)")
      ->check(CheckDuration);
  cmd->footer(
      "Example:\n  redrive jobs retry 01a227b1-17ac-70b2-8612-af0bc51bf36f --expires-in 1h");
  ctx.OnRun(cmd, [&ctx, f] { return RunRetry(ctx, *f); });
}

void AddPriority(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand("priority", "Change a job's priority (-100..100, higher first)");
  auto id = std::make_shared<std::string>();
  auto priority = std::make_shared<int>(0);
  cmd->add_option("ID", *id, "Job id")->required();
  cmd->add_option("PRIORITY", *priority, "New priority")->required();
  cmd->footer("Example:\n  redrive jobs priority 01a227b1-17ac-70b2-8612-af0bc51bf36f 10");
  ctx.OnRun(cmd, [&ctx, id, priority] {
    auto change = ctx.client().SetPriority(*id, *priority);
    if (!change.ok()) return ReportError(change.status());
    if (ctx.flags.json) {
      PrintJson({{"job_id", change->job_id},
                 {"old_priority", change->old_priority},
                 {"new_priority", change->new_priority}});
    } else {
      std::cout << change->job_id << ": priority " << change->old_priority << " -> "
                << change->new_priority << "\n";
    }
    return kExitOk;
  });
}

}  // namespace

void AddJobsCommand(CLI::App& app, CliContext& ctx) {
  auto* jobs = app.add_subcommand("jobs", "List, inspect, cancel, retry and reprioritize jobs");
  jobs->require_subcommand(1);
  AddList(*jobs, ctx);
  AddGet(*jobs, ctx);
  AddHistory(*jobs, ctx);
  AddCancel(*jobs, ctx);
  AddRetry(*jobs, ctx);
  AddPriority(*jobs, ctx);
}

}  // namespace redrive::cli
