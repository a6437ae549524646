// `redrive dlq summary|list|show|retry|purge`: the dead-letter queue. Redrives and
// purges act on many jobs, so retry needs an explicit selection and purge a
// confirmation. A selection that matches nothing says so and shows the DLQ's
// error classes closest to what was asked.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/value_from.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/confirm.h"
#include "cli/dead_job_filter.h"
#include "cli/durations.h"
#include "cli/job_views.h"
#include "cli/operation_progress.h"
#include "cli/output.h"
#include "cli/progress_bar.h"
#include "core/retry_budget.h"
#include "core/time_format.h"
#include "wire/job_json.h"

namespace redrive::cli {
namespace {

Instant Now() { return SystemClock().Now(); }

struct SummaryFlags {
  DeadJobFilterFlags filter;
  std::optional<int> limit;
};

int RunSummary(CliContext& ctx, const SummaryFlags& f) {
  sdk::DlqSummaryFilter filter;
  ApplyFilter(f.filter, filter);
  filter.limit = f.limit;
  auto groups = ctx.client().DlqSummary(filter);
  if (!groups.ok()) return ReportError(groups.status());
  if (ctx.flags.json) {
    PrintDeadLetterGroupsJson(*groups);
  } else if (groups->empty() && HasFilter(f.filter)) {
    PrintNoMatch(ctx, f.filter, Describe(f.filter, "", "any queue"));
  } else if (groups->empty()) {
    std::cout << "the DLQ is empty\n";
  } else {
    PrintDeadLetterGroupTable(std::cout, *groups, Now());
  }
  return kExitOk;
}

void AddSummary(CLI::App& dlq, CliContext& ctx) {
  auto* cmd = dlq.add_subcommand(
      "summary",
      "Why are they dead? Dead jobs grouped by queue, reason and error class, largest first");
  auto f = std::make_shared<SummaryFlags>();
  AddFilterOptions(cmd, f->filter, "Only this queue");
  cmd->add_option("--limit,-n", f->limit, "At most this many groups (1..100, default 20)");
  cmd->footer(
      "Errors are grouped by class: their text with numbers, ids, quoted values,\n"
      "times and addresses as placeholders (<n>, <uuid>, <hex>, <id>, <str>, <time>,\n"
      "<ip>), so 'upstream 504 after 20s' and 'after 30s' are one class. ERROR shows\n"
      "that normalized text, then e.g. one error of the class. Redrive one class with\n"
      "  redrive dlq retry --queue Q --fingerprint FINGERPRINT\n"
      "Examples:\n"
      "  redrive dlq summary\n"
      "  redrive dlq summary --queue payments --json");
  ctx.OnRun(cmd, [&ctx, f] { return RunSummary(ctx, *f); });
}

struct ListFlags {
  DeadJobFilterFlags filter;
  std::optional<int> limit, offset;
};

int RunList(CliContext& ctx, const ListFlags& f) {
  sdk::DlqFilter filter;
  ApplyFilter(f.filter, filter);
  filter.limit = f.limit;
  filter.offset = f.offset;
  auto jobs = ctx.client().ListDlq(filter);
  if (!jobs.ok()) return ReportError(jobs.status());
  if (ctx.flags.json)
    PrintJobSummariesJson(*jobs);
  else if (jobs->empty() && f.offset.value_or(0) > 0)
    std::cout << "no more dead jobs (offset " << *f.offset << ")\n";
  else if (jobs->empty() && HasFilter(f.filter))
    PrintNoMatch(ctx, f.filter, Describe(f.filter, "", "any queue"));
  else if (jobs->empty())
    std::cout << "the DLQ is empty\n";
  else
    PrintDeadJobTable(std::cout, *jobs, Now());
  return kExitOk;
}

void AddList(CLI::App& dlq, CliContext& ctx) {
  auto* cmd = dlq.add_subcommand("list", "List dead jobs, most recently dead first");
  auto f = std::make_shared<ListFlags>();
  AddFilterOptions(cmd, f->filter, "Only this queue");
  cmd->add_option("--limit,-n", f->limit, "At most this many (1..100, default 50)");
  cmd->add_option("--offset", f->offset, "Skip this many");
  cmd->footer(
      "Examples:\n"
      "  redrive dlq list --queue emails\n"
      "  redrive dlq list --reason non_retryable --json");
  ctx.OnRun(cmd, [&ctx, f] { return RunList(ctx, *f); });
}

int RunShow(CliContext& ctx, const std::string& id) {
  auto job = ctx.client().GetJob(id);
  if (!job.ok()) return ReportError(job.status());
  auto history = ctx.client().History(id);
  if (!history.ok()) return ReportError(history.status());
  if (ctx.flags.json) {
    boost::json::array entries;
    for (const auto& e : *history) entries.push_back(wire::HistoryEntryToJson(e));
    PrintJson({{"job", wire::JobToJson(*job)}, {"history", entries}});
    return kExitOk;
  }
  PrintJobDetail(std::cout, *job, Now());
  std::cout << "\nHistory:\n";
  PrintHistory(std::cout, *history, Now());
  return kExitOk;
}

void AddShow(CLI::App& dlq, CliContext& ctx) {
  auto* cmd = dlq.add_subcommand("show", "Show a dead job: last error, reason, payload, history");
  auto id = std::make_shared<std::string>();
  cmd->add_option("ID", *id, "Job id")->required();
  cmd->footer("Example:\n  redrive dlq show 01a227b1-17ac-70b2-8612-af0bc51bf36f");
  ctx.OnRun(cmd, [&ctx, id] { return RunShow(ctx, *id); });
}

struct RetryFlags {
  DeadJobFilterFlags filter;
  std::string rate, budget, to_queue;
  std::vector<std::string> ids;
  std::optional<int> limit;
  bool dry_run = false, all = false;
};

// The one rule of what a redrive may select, the API's too: the jobs named
// (--ids), or the dead jobs matching any filter (--queue, --reason, --tag,
// --error-prefix), or every dead job. The API takes an empty selection as
// "every dead job" (the contract's); the CLI asks for --all to mean it.
bool SaysWhichJobs(const RetryFlags& f) { return !f.ids.empty() || HasFilter(f.filter) || f.all; }

sdk::DlqRetryRequest RetryRequest(const RetryFlags& f) {
  sdk::DlqRetryRequest request;
  request.job_ids = f.ids;
  ApplyFilter(f.filter, request);
  request.limit = f.limit;
  request.dry_run = f.dry_run;
  if (!f.rate.empty()) request.rate_per_second = ParseRate(f.rate);
  if (!f.budget.empty()) request.budget = f.budget;
  if (!f.to_queue.empty()) request.target_queue = f.to_queue;
  return request;
}

std::string RetryScope(const RetryFlags& f) {
  if (!f.ids.empty()) return "dead jobs among the " + std::to_string(f.ids.size()) + " named";
  return Describe(f.filter, "", "any queue");
}

boost::json::object RetryJson(const sdk::DlqRetryResult& r) {
  boost::json::object out{{"matched_count", r.matched_count}, {"selected_count", r.selected_count}};
  if (r.dry_run) {
    out["dry_run"] = true;
    return out;
  }
  out["retried_count"] = r.retried_count;
  out["retried_jobs"] = boost::json::value_from(r.retried_jobs);
  if (r.first_due_at) out["first_due_at"] = FormatTime(*r.first_due_at);
  if (r.last_due_at) out["last_due_at"] = FormatTime(*r.last_due_at);
  return out;
}

// "throttled: the first is due now, the last in 3m20s" (behind an earlier
// throttled redrive of the queue, the first may be due later).
void PrintThrottle(const sdk::DlqRetryResult& r) {
  if (!r.first_due_at || !r.last_due_at) return;
  const Instant now = Now();
  auto when = [&](Instant t) { return t <= now ? std::string("now") : FormatRelative(t, now); };
  std::cout << "throttled: the first is due " << when(*r.first_due_at) << ", the last "
            << when(*r.last_due_at) << "\n";
}

int PrintRetry(CliContext& ctx, const RetryFlags& f, const sdk::DlqRetryResult& r) {
  if (ctx.flags.json) {
    boost::json::object out = RetryJson(r);
    if (r.matched_count == 0 && f.ids.empty()) AddClosestJson(ctx, f.filter, out);
    PrintJson(out);
    return kExitOk;
  }
  if (r.matched_count == 0) {
    if (f.ids.empty()) {
      PrintNoMatch(ctx, f.filter, RetryScope(f));
    } else {
      std::cout << "none of the " << f.ids.size() << " jobs named is dead; nothing retried\n";
    }
    return kExitOk;
  }
  const std::string of = std::to_string(r.selected_count) + " of " +
                         std::to_string(r.matched_count) + " matching dead jobs";
  if (r.dry_run) {
    std::cout << "would retry " << of << " (dry run; nothing changed)\n";
  } else {
    std::cout << "retried " << of << "\n";
    PrintThrottle(r);
    for (const auto& id : r.retried_jobs) std::cout << "  " << id << "\n";
  }
  if (r.selected_count < r.matched_count) {
    std::cout << (r.matched_count - r.selected_count) << " more match: one call takes at most "
              << "--limit (" << r.selected_count << " here); --all takes every match\n";
  }
  return kExitOk;
}

// --all with a selection: one bulk operation on the server (POST
// /operations), which redrives every match in batches, however many, and
// survives a restart; the CLI follows it with a progress bar. A dry run
// answers the exact count.
int RunRetryOperation(CliContext& ctx, const RetryFlags& f) {
  sdk::OperationRequest request;
  request.action = "retry";
  request.selector = SelectorOf(f.filter);
  if (!f.ids.empty()) request.selector["job_ids"] = boost::json::value_from(f.ids);
  if (!f.rate.empty()) request.rate_per_second = ParseRate(f.rate);
  if (!f.budget.empty()) request.budget = f.budget;
  if (!f.to_queue.empty()) request.target_queue = f.to_queue;
  if (f.dry_run) {
    auto preview = ctx.client().PreviewOperation(request);
    if (!preview.ok()) return ReportError(preview.status());
    sdk::DlqRetryResult counted;
    counted.dry_run = true;
    counted.matched_count = counted.selected_count = static_cast<int>(preview->matched_count);
    return PrintRetry(ctx, f, counted);
  }
  return RunOperationToEnd(ctx, request, "retried");
}

// The most one request of a redrive takes (the API's limit).
constexpr int kPageSize = 1000;

// --all without any filter (every dead job, which an operation never
// selects): the synchronous route, a page at a time, oldest dead first.
// Retried jobs leave the DLQ, so each page is the next; it stops after the
// number first matched (jobs that die meanwhile are not chased) or when a
// page comes back empty.
int RunRetryAll(CliContext& ctx, const RetryFlags& f) {
  if (!f.ids.empty() || HasFilter(f.filter)) return RunRetryOperation(ctx, f);
  sdk::DlqRetryRequest request = RetryRequest(f);
  request.limit = kPageSize;
  if (f.dry_run) {
    auto counted = ctx.client().RetryDlq(request);
    if (!counted.ok()) return ReportError(counted.status());
    counted->selected_count = counted->matched_count;  // every page
    return PrintRetry(ctx, f, *counted);
  }
  sdk::DlqRetryResult total;
  ProgressBar bar(IsTerminal(STDERR_FILENO) && !ctx.flags.json, 0);
  bool first = true;
  while (first || total.retried_count < total.matched_count) {
    if (!first) request.limit = std::min(kPageSize, total.matched_count - total.retried_count);
    auto page = ctx.client().RetryDlq(request);
    if (!page.ok()) {
      bar.Finish();
      if (total.retried_count > 0) {
        std::cerr << "redrive: retried " << total.retried_count << " of " << total.matched_count
                  << " before this error\n";
      }
      return ReportError(page.status());
    }
    if (first) {
      total.matched_count = page->matched_count;
      bar = ProgressBar(IsTerminal(STDERR_FILENO) && !ctx.flags.json,
                        static_cast<size_t>(page->matched_count));
      total.first_due_at = page->first_due_at;
      first = false;
    }
    if (page->retried_count == 0) break;
    total.retried_count += page->retried_count;
    total.retried_jobs.insert(total.retried_jobs.end(), page->retried_jobs.begin(),
                              page->retried_jobs.end());
    if (page->last_due_at) total.last_due_at = page->last_due_at;
    bar.Update(static_cast<size_t>(total.retried_count),
               "retried " + std::to_string(total.retried_count) + " of " +
                   std::to_string(total.matched_count));
  }
  bar.Finish();
  total.selected_count = total.retried_count;
  return PrintRetry(ctx, f, total);
}

int RunRetry(CliContext& ctx, const RetryFlags& f) {
  if (!SaysWhichJobs(f)) {
    return UsageError(
        "dlq retry: say which jobs: --queue Q, --reason R, --tag T, --error-prefix E, "
        "--ids a,b, or --all for every dead job");
  }
  if (f.all) return RunRetryAll(ctx, f);
  auto result = ctx.client().RetryDlq(RetryRequest(f));
  if (!result.ok()) return ReportError(result.status());
  return PrintRetry(ctx, f, *result);
}

void AddRetry(CLI::App& dlq, CliContext& ctx) {
  auto* cmd = dlq.add_subcommand("retry", "Redrive dead jobs: back to pending, retries reset");
  auto f = std::make_shared<RetryFlags>();
  AddFilterOptions(cmd, f->filter, "Dead jobs of this queue");
  auto* ids =
      cmd->add_option("--ids", f->ids, "These jobs (comma-separated); other filters are ignored")
          ->delimiter(',');
  auto* limit = cmd->add_option("--limit,-n", f->limit,
                                "At most this many in one call (1..1000, default 100)");
  cmd->add_flag("--all", f->all,
                "Every match, however many: with a filter, a server-side operation in "
                "batches, followed with a progress bar; with no filter, every dead job, in "
                "pages of 1000")
      ->excludes(ids)
      ->excludes(limit);
  cmd->add_flag("--dry-run", f->dry_run, "Only count what would be retried");
  cmd->add_option("--rate", f->rate,
                  "Spread the redrive: 50/s, 600/m. A queue's throttled redrives share the "
                  "rate: this one starts after the last job of earlier ones")
      ->check(CheckRate);
  cmd->add_option("--budget", f->budget,
                  "Retries each gets: reset (default: max_retries again), keep (only those "
                  "left), extend:N (N more)")
      ->check([](const std::string& text) -> std::string {
        return ParseRetryBudget(text) ? "" : "'" + text + "' is not reset, keep or extend:N";
      });
  cmd->add_option("--to-queue", f->to_queue,
                  "Redrive into this queue instead of each job's own (created if new; a "
                  "throttled redrive then shares this queue's rate)");
  cmd->footer(
      "Say which jobs: --ids, or any of --queue, --reason, --tag, --error-prefix,\n"
      "--fingerprint, or --all.\n"
      "Every answer says how many dead jobs match and how many this call retried.\n"
      "Examples:\n"
      "  redrive dlq retry --queue emails --dry-run\n"
      "  redrive dlq retry --reason lease_expired --all --rate 50/s\n"
      "  redrive dlq retry --queue payments --error-prefix 'gateway timeout' --dry-run\n"
      "  redrive dlq retry --queue payments --fingerprint 3f9a8b7c6d5e4f3a --dry-run\n"
      "  redrive dlq retry --queue payments --all --to-queue payments-slow --rate 5/s\n"
      "  redrive dlq retry --ids 01a227b1-...,01a227b2-...");
  ctx.OnRun(cmd, [&ctx, f] { return RunRetry(ctx, *f); });
}

struct PurgeFlags {
  DeadJobFilterFlags filter;
  std::string older_than;
  std::optional<int> limit;
  bool yes = false, dry_run = false, all = false;
};

// Every filter of the purge, in words: "dead jobs of queue payments whose
// reason is non_retryable, tagged env=prod".
std::string PurgeDescription(const PurgeFlags& p) {
  return Describe(p.filter, p.older_than, "EVERY queue");
}

sdk::DlqPurgeRequest PurgeRequest(const PurgeFlags& f) {
  sdk::DlqPurgeRequest request;
  request.confirm = true;  // the server wants it on dry runs too
  ApplyFilter(f.filter, request);
  if (!f.older_than.empty()) request.older_than = Now() - *ParseDuration(f.older_than);
  request.limit = f.limit;
  return request;
}

int PrintPurged(CliContext& ctx, int purged) {
  if (ctx.flags.json)
    PrintJson({{"purged_count", purged}});
  else
    std::cout << "purged " << purged << " dead jobs\n";
  return kExitOk;
}

// --all: one bulk operation on the server (POST /operations), however many
// jobs match; the CLI follows it with a progress bar.
int RunPurgeOperation(CliContext& ctx, const PurgeFlags& f) {
  sdk::OperationRequest request;
  request.action = "purge";
  request.selector = SelectorOf(f.filter);
  if (!f.older_than.empty()) {
    request.selector["dead_before"] = FormatTime(Now() - *ParseDuration(f.older_than));
  }
  return RunOperationToEnd(ctx, request, "purged");
}

int RunPurge(CliContext& ctx, const PurgeFlags& f) {
  if (f.all && !HasFilter(f.filter) && f.older_than.empty()) {
    return UsageError(
        "dlq purge --all: say which jobs: --queue, --reason, --tag, --error-prefix "
        "or --older-than (an operation never selects every job)");
  }
  // One request for the count and the purge: the same filters, the same cutoff.
  sdk::DlqPurgeRequest request = PurgeRequest(f);
  if (f.dry_run) {
    request.dry_run = true;
    auto matched = ctx.client().PurgeDlq(request);
    if (!matched.ok()) return ReportError(matched.status());
    if (ctx.flags.json) {
      boost::json::object out{{"matched_count", *matched}, {"dry_run", true}};
      if (*matched == 0) AddClosestJson(ctx, f.filter, out);
      PrintJson(out);
    } else if (*matched == 0 && HasFilter(f.filter)) {
      PrintNoMatch(ctx, f.filter, PurgeDescription(f));
    } else {
      std::cout << "would purge " << *matched << " dead jobs (dry run; nothing deleted)\n";
    }
    return kExitOk;
  }
  if (!f.yes) {
    if (!IsTerminal(STDIN_FILENO)) {
      return UsageError(
          "dlq purge deletes jobs for good: pass --yes to confirm (stdin is not a terminal)");
    }
    // Ask about the exact number: a dry run of the very same purge.
    request.dry_run = true;
    auto matched = ctx.client().PurgeDlq(request);
    if (!matched.ok()) return ReportError(matched.status());
    request.dry_run = false;
    if (*matched == 0 && HasFilter(f.filter) && !ctx.flags.json) {
      PrintNoMatch(ctx, f.filter, PurgeDescription(f));
      return kExitOk;
    }
    if (*matched == 0) {
      std::cerr << "redrive: no " << PurgeDescription(f) << "\n";
      return PrintPurged(ctx, 0);
    }
    std::string expected = f.filter.queue.empty() ? "yes" : f.filter.queue;
    if (!Confirm("Delete " + GroupedCount(*matched) + " " + PurgeDescription(f) + "?", expected)) {
      std::cerr << "redrive: not confirmed; nothing purged\n";
      return kExitUsage;
    }
    // Never delete more than the operator agreed to, even if more died meanwhile.
    request.limit = *matched;
  }
  if (f.all) return RunPurgeOperation(ctx, f);
  auto purged = ctx.client().PurgeDlq(request);
  if (!purged.ok()) return ReportError(purged.status());
  return PrintPurged(ctx, *purged);
}

void AddPurge(CLI::App& dlq, CliContext& ctx) {
  auto* cmd = dlq.add_subcommand("purge", "Delete dead jobs for good (asks for confirmation)");
  auto f = std::make_shared<PurgeFlags>();
  AddFilterOptions(cmd, f->filter, "Only this queue (default: every queue)");
  cmd->add_option("--older-than", f->older_than, "Only jobs dead for longer than this (7d, 12h)")
      ->check(CheckDuration);
  cmd->add_option("--limit,-n", f->limit, "At most this many (1..10000, default 10000)");
  cmd->add_flag("--dry-run", f->dry_run, "Only count what would be purged; needs no confirmation");
  cmd->add_flag("--yes,-y", f->yes, "Do not ask; required when stdin is not a terminal");
  cmd->add_flag("--all", f->all,
                "Every match, however many: a server-side operation in batches, with a "
                "progress bar (no --limit)");
  cmd->footer(
      "On a terminal, purge counts the matching jobs, then asks you to type the queue\n"
      "name (or \"yes\" without --queue); it deletes at most the number it showed.\n"
      "Examples:\n"
      "  redrive dlq purge --queue emails --older-than 7d\n"
      "  redrive dlq purge --queue payments --reason non_retryable --dry-run\n"
      "  redrive dlq purge --queue payments --fingerprint 3f9a8b7c6d5e4f3a --dry-run\n"
      "  redrive dlq purge --queue emails --yes      # scripts, cron");
  ctx.OnRun(cmd, [&ctx, f] { return RunPurge(ctx, *f); });
}

}  // namespace

void AddDlqCommand(CLI::App& app, CliContext& ctx) {
  auto* dlq = app.add_subcommand(
      "dlq", "The dead-letter queue: summary, list, show, redrive, purge, autoredrive");
  dlq->require_subcommand(1);
  AddSummary(*dlq, ctx);
  AddList(*dlq, ctx);
  AddShow(*dlq, ctx);
  AddRetry(*dlq, ctx);
  AddPurge(*dlq, ctx);
  AddAutoredriveCommand(*dlq, ctx);
}

}  // namespace redrive::cli
