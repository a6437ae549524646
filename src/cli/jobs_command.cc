// `redrive jobs list|get|history|cancel|retry|release|move|priority|watch`:
// look at and act on single jobs (release also on a selection of quarantined
// jobs; move, in jobs_move_command.cc, on a queue's jobs). Each action makes one SDK call and
// prints its answer; watch prints the live events of jobs as they happen.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/job_views.h"
#include "cli/list_pages.h"
#include "cli/output.h"
#include "core/limits.h"
#include "core/retry_budget.h"
#include "wire/job_json.h"

namespace redrive::cli {
namespace {

Instant Now() { return SystemClock().Now(); }

std::string CheckBudget(const std::string& text) {
  return ParseRetryBudget(text) ? ""
                                : "'" + text + "' is not a budget (reset, keep, extend:N with N " +
                                      "in 1.." + std::to_string(kMaxRetryExtend) + ")";
}

std::optional<std::string> OptionalText(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

std::string CheckStatus(const std::string& text) {
  return ParseJobStatus(text) ? "" : "'" + text + "' is not a status (" + JobStatusNames() + ")";
}

struct ListFlags {
  std::string queue, status, tag, fingerprint;
  std::optional<int> limit, offset;
  bool all = false;
};

inline constexpr int kJobsPage = 100;          // the API's largest list page
inline constexpr int kDefaultJobsListed = 50;  // the API's default page

// How many jobs match the filter, when the counts can tell (no tag filter).
std::optional<long long> MatchingJobs(sdk::Client& client, const sdk::ListJobsFilter& filter) {
  if (filter.tag) return std::nullopt;
  auto counts = client.Stats(filter.queue_name.value_or(""));
  if (!counts.ok()) return std::nullopt;  // only the hint needs it
  StatusCounts n = *counts;
  return filter.status ? n.of(*filter.status) : n.total();
}

int RunList(CliContext& ctx, const ListFlags& f) {
  if (f.all && f.limit) return UsageError("jobs list: --all and --limit exclude each other");
  if (f.limit && *f.limit < 1) return UsageError("jobs list: --limit must be at least 1");
  if (f.offset && *f.offset < 0) return UsageError("jobs list: --offset must be 0 or more");
  sdk::ListJobsFilter filter;
  if (!f.queue.empty()) filter.queue_name = f.queue;
  if (!f.status.empty()) filter.status = ParseJobStatus(f.status);
  if (!f.tag.empty()) filter.tag = f.tag;
  if (!f.fingerprint.empty()) filter.fingerprint = f.fingerprint;
  PageReader<Job> read = [&](int offset, int limit) {
    sdk::ListJobsFilter page = filter;
    page.offset = offset;
    page.limit = limit;
    return ctx.client().ListJobs(page);
  };
  std::optional<int> want;
  if (!f.all) want = f.limit.value_or(kDefaultJobsListed);
  auto jobs = ReadPages(read, f.offset.value_or(0), want, kJobsPage);
  if (!jobs.ok()) return ReportError(jobs.status());
  if (ctx.flags.json) {
    PrintJobSummariesJson(jobs->rows);
  } else if (jobs->rows.empty()) {
    std::cout << "no jobs\n";
  } else {
    PrintJobTable(std::cout, jobs->rows, Now());
  }
  // On stderr, so that --json and pipes read only the rows.
  if (jobs->more)
    std::cerr << MoreHint(jobs->rows.size(), MatchingJobs(ctx.client(), filter)) << "\n";
  return kExitOk;
}

void AddList(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand("list", "List jobs, newest first");
  auto f = std::make_shared<ListFlags>();
  cmd->add_option("--queue,-q", f->queue, "Only this queue");
  cmd->add_option("--status,-s", f->status, "Only this status")->check(CheckStatus);
  cmd->add_option("--tag", f->tag, "Only jobs with this tag: key=value, or key for any value");
  cmd->add_option("--fingerprint", f->fingerprint,
                  "Only dead or quarantined jobs of this error class (error_fingerprint)");
  cmd->add_option("--limit,-n", f->limit, "At most this many (default 50; any number, paged)");
  cmd->add_option("--offset", f->offset, "Skip this many");
  cmd->add_flag("--all", f->all, "Every matching job, page after page");
  cmd->footer(
      "When more jobs match than are shown, stderr says so: \"showing 50 of 3,211 — use\n"
      "--all or --offset\".\n"
      "Examples:\n"
      "  redrive jobs list --queue emails --status pending\n"
      "  redrive jobs list --queue emails --limit 500\n"
      "  redrive jobs list --tag tenant=acme --all --json | jq -r '.[].id'");
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
  std::string id, expires_in, budget, to_queue;
};

int RunRetry(CliContext& ctx, const RetryFlags& f) {
  std::optional<Instant> expires_at;
  if (!f.expires_in.empty()) expires_at = Now() + *ParseDuration(f.expires_in);
  auto job = ctx.client().Retry(f.id, expires_at, OptionalText(f.budget), OptionalText(f.to_queue));
  if (!job.ok()) return ReportError(job.status());
  if (ctx.flags.json)
    PrintJson(wire::JobToJson(*job));
  else
    std::cout << "retried " << job->id << ": now " << JobStatusName(job->status) << " in "
              << job->queue_name << "\n";
  return kExitOk;
}

void AddRetry(CLI::App& jobs, CliContext& ctx) {
  auto* cmd =
      jobs.add_subcommand("retry", "Redrive a dead or cancelled job (due now, retries reset)");
  auto f = std::make_shared<RetryFlags>();
  cmd->add_option("ID", f->id, "Job id")->required();
  cmd->add_option("--expires-in", f->expires_in, "New deadline, from now (30s, 1h, 2d)")
      ->check(CheckDuration);
  cmd->add_option("--budget", f->budget,
                  "Retries it gets: reset (default: max_retries again), keep, extend:N")
      ->check(CheckBudget);
  cmd->add_option("--to-queue", f->to_queue,
                  "Redrive into this queue instead of the job's own (created if new)");
  cmd->footer(
      "Examples:\n  redrive jobs retry 01a227b1-17ac-70b2-8612-af0bc51bf36f --expires-in 1h\n"
      "  redrive jobs retry 01a227b1-17ac-70b2-8612-af0bc51bf36f --to-queue payments-slow");
  ctx.OnRun(cmd, [&ctx, f] { return RunRetry(ctx, *f); });
}

struct ReleaseFlags {
  std::string id, queue, tag, fingerprint, budget, to_queue;
  std::optional<int> limit;
  bool dry_run = false;
};

int RunReleaseOne(CliContext& ctx, const ReleaseFlags& f) {
  auto job = ctx.client().Release(f.id, OptionalText(f.budget), OptionalText(f.to_queue));
  if (!job.ok()) return ReportError(job.status());
  if (ctx.flags.json) {
    PrintJson(wire::JobToJson(*job));
  } else {
    std::cout << "released " << job->id << ": now " << JobStatusName(job->status) << " in "
              << job->queue_name << " (retry_count " << job->retry_count << "/" << job->max_retries
              << ")\n";
  }
  return kExitOk;
}

int RunRelease(CliContext& ctx, const ReleaseFlags& f) {
  if (!f.id.empty()) return RunReleaseOne(ctx, f);
  if (f.queue.empty() && f.tag.empty() && f.fingerprint.empty()) {
    return UsageError("jobs release: give a job ID, or --queue Q, --tag T and/or --fingerprint F");
  }
  sdk::ReleaseRequest request;
  request.queue_name = OptionalText(f.queue);
  request.tag = OptionalText(f.tag);
  request.fingerprint = OptionalText(f.fingerprint);
  request.limit = f.limit;
  request.dry_run = f.dry_run;
  request.budget = OptionalText(f.budget);
  request.target_queue = OptionalText(f.to_queue);
  auto r = ctx.client().ReleaseQuarantined(request);
  if (!r.ok()) return ReportError(r.status());
  if (ctx.flags.json) {
    boost::json::array ids;
    for (const std::string& id : r->released_ids) ids.emplace_back(id);
    boost::json::object out;
    out["dry_run"] = r->dry_run;
    out["selected_count"] = r->selected_count;
    out["released_ids"] = std::move(ids);
    PrintJson(out);
  } else if (r->dry_run) {
    std::cout << "would release " << r->selected_count << " quarantined jobs (dry run)\n";
  } else {
    std::cout << "released " << r->released_ids.size() << " quarantined jobs\n";
  }
  return kExitOk;
}

void AddRelease(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand("release",
                                  "Release quarantined jobs: back to pending, crash count reset");
  auto f = std::make_shared<ReleaseFlags>();
  auto* id = cmd->add_option("ID", f->id, "Job id (or select with --queue/--tag)");
  cmd->add_option("--queue,-q", f->queue, "Quarantined jobs of this queue")->excludes(id);
  cmd->add_option("--tag", f->tag, "Quarantined jobs with this tag (key=value or key)")
      ->excludes(id);
  cmd->add_option("--fingerprint", f->fingerprint,
                  "Quarantined jobs of this error class (their error_fingerprint, 16 hex digits)")
      ->excludes(id);
  cmd->add_option("--limit,-n", f->limit, "At most this many (1..1000, default 100)")->excludes(id);
  cmd->add_flag("--dry-run", f->dry_run, "Only count what would be released")->excludes(id);
  cmd->add_option("--budget", f->budget,
                  "Retries it gets: reset (default: max_retries again), keep, extend:N")
      ->check(CheckBudget);
  cmd->add_option("--to-queue", f->to_queue,
                  "Release into this queue instead (e.g. one served by a careful worker)");
  cmd->footer(
      "Examples:\n"
      "  redrive jobs release 01a227b1-17ac-70b2-8612-af0bc51bf36f\n"
      "  redrive jobs release 01a227b1-17ac-70b2-8612-af0bc51bf36f --to-queue payments-careful\n"
      "  redrive jobs release --queue payments --dry-run\n"
      "  redrive jobs release --queue payments --budget keep");
  ctx.OnRun(cmd, [&ctx, f] { return RunRelease(ctx, *f); });
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

// One live event as a line: time, type, queue, job (or worker), and what
// happened.
std::string EventLine(const sdk::LiveEvent& event) {
  auto text = [&](std::string_view key) -> std::string {
    if (!event.data.is_object()) return "";
    const boost::json::value* v = event.data.get_object().if_contains(key);
    if (v == nullptr) return "";
    if (v->is_string()) return std::string(v->get_string());
    return boost::json::serialize(*v);
  };
  std::string line = text("timestamp") + "  " + event.type + "  " + text("queue_name") + "  ";
  line += event.type.starts_with("Worker") ? text("worker_id") : text("job_id");
  if (event.type == "JobStatusChange") {
    line += "  " + text("old_status") + " -> " + text("new_status");
  } else if (event.type == "JobCompleted") {
    line += "  " + text("duration_ms") + " ms";
  } else if (event.type == "JobFailed") {
    line += "  " + std::string(text("will_retry") == "true" ? "will retry" : "no retry") + ": " +
            text("error");
  } else if (event.type == "JobCreated") {
    line += "  priority " + text("priority");
  }
  return line;
}

void AddWatch(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand(
      "watch", "Print jobs' events as they happen (created, status changes, completed, failed)");
  auto filter = std::make_shared<sdk::WatchEventsFilter>();
  cmd->add_option("--queue", filter->queue_name, "Only this queue's jobs");
  cmd->add_option("--job", filter->job_id, "Only this job");
  cmd->footer(
      "Runs until interrupted (Ctrl-C) or the server ends the stream.\n"
      "Examples:\n"
      "  redrive jobs watch\n"
      "  redrive jobs watch --queue emails\n"
      "  redrive jobs watch --job 01a227b1-17ac-70b2-8612-af0bc51bf36f --json");
  ctx.OnRun(cmd, [&ctx, filter] {
    Status st = ctx.client().WatchEvents(*filter, [&ctx](const sdk::LiveEvent& event) {
      if (ctx.flags.json) {
        PrintJson({{"type", event.type}, {"data", event.data}});
        std::cout.flush();
      } else {
        std::cout << EventLine(event) << std::endl;  // each line as it happens
      }
      return true;
    });
    if (!st.ok()) return ReportError(st);
    return kExitOk;
  });
}

}  // namespace

void AddJobsCommand(CLI::App& app, CliContext& ctx) {
  auto* jobs = app.add_subcommand(
      "jobs", "List, inspect, cancel, retry, release, move, reprioritize and watch jobs");
  jobs->require_subcommand(1);
  AddList(*jobs, ctx);
  AddGet(*jobs, ctx);
  AddHistory(*jobs, ctx);
  AddCancel(*jobs, ctx);
  AddRetry(*jobs, ctx);
  AddRelease(*jobs, ctx);
  AddJobsMove(*jobs, ctx);
  AddPriority(*jobs, ctx);
  AddWatch(*jobs, ctx);
}

}  // namespace redrive::cli
