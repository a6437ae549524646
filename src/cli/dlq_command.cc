// `redrive dlq summary|list|show|retry|purge`: the dead-letter queue. Redrives and
// purges act on many jobs, so retry needs an explicit selection and purge a
// confirmation.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/value_from.hpp>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/confirm.h"
#include "cli/durations.h"
#include "cli/job_views.h"
#include "cli/output.h"
#include "wire/job_json.h"

namespace redrive::cli {
namespace {

Instant Now() { return SystemClock().Now(); }

std::string CheckReason(const std::string& text) {
  return ParseDeadReason(text) ? ""
                               : "'" + text + "' is not a dead reason (" + DeadReasonNames() + ")";
}

std::optional<std::string> NonEmpty(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return text;
}

// The filters every DLQ command shares: which dead jobs it is about.
struct DeadJobFilterFlags {
  std::string queue, reason, tag, error_prefix;
};

void AddFilterOptions(CLI::App* cmd, DeadJobFilterFlags& f, const std::string& queue_help) {
  cmd->add_option("--queue,-q", f.queue, queue_help);
  cmd->add_option("--reason", f.reason, "Only this dead reason")->check(CheckReason);
  cmd->add_option("--tag", f.tag, "Only jobs with this tag: key=value, or key");
  cmd->add_option("--error-prefix", f.error_prefix,
                  "Only jobs whose last error starts with this (exact; `dlq summary` "
                  "lists the errors)");
}

// Copies the filters into any SDK filter or request that has the four fields.
template <typename Request>
void ApplyFilter(const DeadJobFilterFlags& f, Request& out) {
  out.queue_name = NonEmpty(f.queue);
  if (!f.reason.empty()) out.dead_reason = ParseDeadReason(f.reason);
  out.tag = NonEmpty(f.tag);
  out.error_prefix = NonEmpty(f.error_prefix);
}

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
  } else if (groups->empty()) {
    std::cout << "the DLQ is empty\n";
  } else {
    PrintDeadLetterGroupTable(std::cout, *groups, Now());
  }
  return kExitOk;
}

void AddSummary(CLI::App& dlq, CliContext& ctx) {
  auto* cmd = dlq.add_subcommand(
      "summary", "Why are they dead? Dead jobs grouped by queue, reason and error, largest first");
  auto f = std::make_shared<SummaryFlags>();
  AddFilterOptions(cmd, f->filter, "Only this queue");
  cmd->add_option("--limit,-n", f->limit, "At most this many groups (1..100, default 20)");
  cmd->footer(
      "Errors are grouped by their first 200 characters. Redrive one class with\n"
      "  redrive dlq retry --queue Q --error-prefix 'the error text'\n"
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
  std::string rate;
  std::vector<std::string> ids;
  std::optional<int> limit;
  bool dry_run = false, all = false;
};

int RunRetry(CliContext& ctx, const RetryFlags& f) {
  if (f.filter.queue.empty() && f.ids.empty() && f.filter.error_prefix.empty() && !f.all) {
    return UsageError("dlq retry: say which jobs: --queue Q, --error-prefix E, --ids a,b or --all");
  }
  sdk::DlqRetryRequest request;
  request.job_ids = f.ids;
  ApplyFilter(f.filter, request);
  request.limit = f.limit;
  request.dry_run = f.dry_run;
  if (!f.rate.empty()) request.rate_per_second = ParseRate(f.rate);
  auto result = ctx.client().RetryDlq(request);
  if (!result.ok()) return ReportError(result.status());
  if (ctx.flags.json) {
    if (result->dry_run)
      PrintJson({{"matched_count", result->matched_count}, {"dry_run", true}});
    else
      PrintJson({{"retried_count", result->retried_count},
                 {"retried_jobs", boost::json::value_from(result->retried_jobs)}});
  } else if (result->dry_run) {
    std::cout << "would retry " << result->matched_count << " jobs (dry run; nothing changed)\n";
  } else {
    std::cout << "retried " << result->retried_count << " jobs\n";
    for (const auto& id : result->retried_jobs) std::cout << "  " << id << "\n";
  }
  return kExitOk;
}

void AddRetry(CLI::App& dlq, CliContext& ctx) {
  auto* cmd = dlq.add_subcommand("retry", "Redrive dead jobs: back to pending, retries reset");
  auto f = std::make_shared<RetryFlags>();
  AddFilterOptions(cmd, f->filter, "Dead jobs of this queue");
  cmd->add_option("--ids", f->ids, "These jobs (comma-separated); other filters are ignored")
      ->delimiter(',');
  cmd->add_flag("--all", f->all, "Every dead job (oldest first, up to --limit)");
  cmd->add_option("--limit,-n", f->limit, "At most this many (1..1000, default 100)");
  cmd->add_flag("--dry-run", f->dry_run, "Only count what would be retried");
  cmd->add_option("--rate", f->rate, "Spread the redrive: 50/s, 600/m")->check(CheckRate);
  cmd->footer(
      "Examples:\n"
      "  redrive dlq retry --queue emails --dry-run\n"
      "  redrive dlq retry --queue webhooks --reason lease_expired --rate 50/s\n"
      "  redrive dlq retry --queue payments --error-prefix 'gateway timeout' --dry-run\n"
      "  redrive dlq retry --ids 01a227b1-...,01a227b2-...");
  ctx.OnRun(cmd, [&ctx, f] { return RunRetry(ctx, *f); });
}

struct PurgeFlags {
  DeadJobFilterFlags filter;
  std::string older_than;
  std::optional<int> limit;
  bool yes = false, dry_run = false;
};

// 3988 -> "3,988".
std::string Grouped(long long n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// Every filter of the purge, in words: "dead jobs of queue payments whose
// reason is non_retryable, tagged env=prod".
std::string PurgeDescription(const PurgeFlags& p) {
  const DeadJobFilterFlags& f = p.filter;
  std::vector<std::string> clauses;
  if (!f.reason.empty()) clauses.push_back("whose reason is " + f.reason);
  if (!f.tag.empty()) clauses.push_back("tagged " + f.tag);
  if (!f.error_prefix.empty()) {
    clauses.push_back("whose error starts with \"" + f.error_prefix + "\"");
  }
  if (!p.older_than.empty()) clauses.push_back("that died more than " + p.older_than + " ago");
  std::string what = f.queue.empty() ? "dead jobs of EVERY queue" : "dead jobs of queue " + f.queue;
  for (size_t i = 0; i < clauses.size(); ++i) what += (i == 0 ? " " : ", ") + clauses[i];
  return what;
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

int RunPurge(CliContext& ctx, const PurgeFlags& f) {
  // One request for the count and the purge: the same filters, the same cutoff.
  sdk::DlqPurgeRequest request = PurgeRequest(f);
  if (f.dry_run) {
    request.dry_run = true;
    auto matched = ctx.client().PurgeDlq(request);
    if (!matched.ok()) return ReportError(matched.status());
    if (ctx.flags.json)
      PrintJson({{"matched_count", *matched}, {"dry_run", true}});
    else
      std::cout << "would purge " << *matched << " dead jobs (dry run; nothing deleted)\n";
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
    if (*matched == 0) {
      std::cerr << "redrive: no " << PurgeDescription(f) << "\n";
      return PrintPurged(ctx, 0);
    }
    std::string expected = f.filter.queue.empty() ? "yes" : f.filter.queue;
    if (!Confirm("Delete " + Grouped(*matched) + " " + PurgeDescription(f) + "?", expected)) {
      std::cerr << "redrive: not confirmed; nothing purged\n";
      return kExitUsage;
    }
    // Never delete more than the operator agreed to, even if more died meanwhile.
    request.limit = *matched;
  }
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
  cmd->footer(
      "On a terminal, purge counts the matching jobs, then asks you to type the queue\n"
      "name (or \"yes\" without --queue); it deletes at most the number it showed.\n"
      "Examples:\n"
      "  redrive dlq purge --queue emails --older-than 7d\n"
      "  redrive dlq purge --queue payments --reason non_retryable --dry-run\n"
      "  redrive dlq purge --queue emails --yes      # scripts, cron");
  ctx.OnRun(cmd, [&ctx, f] { return RunPurge(ctx, *f); });
}

}  // namespace

void AddDlqCommand(CLI::App& app, CliContext& ctx) {
  auto* dlq =
      app.add_subcommand("dlq", "The dead-letter queue: summary, list, show, redrive, purge");
  dlq->require_subcommand(1);
  AddSummary(*dlq, ctx);
  AddList(*dlq, ctx);
  AddShow(*dlq, ctx);
  AddRetry(*dlq, ctx);
  AddPurge(*dlq, ctx);
}

}  // namespace redrive::cli
