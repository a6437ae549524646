// `redrive workflows list|show|cancel|retry`: workflows (jobs created
// together, each waiting for others of them). `show` draws the jobs as a tree
// (workflow_tree.h); cancel and retry change many jobs at once, so they ask
// first, as `dlq purge` does.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/confirm.h"
#include "cli/list_pages.h"
#include "cli/output.h"
#include "cli/table.h"
#include "cli/workflow_tree.h"
#include "wire/workflow_json.h"

namespace redrive::cli {
namespace {

inline constexpr int kWorkflowsPage = 100;          // the API's largest list page
inline constexpr int kDefaultWorkflowsListed = 50;  // the API's default page
inline constexpr int kJobsPage = 1000;              // the API's largest page of a workflow's jobs

Instant Now() { return SystemClock().Now(); }

// The SDK's types back into the server's, so that --json prints the API's
// shapes through the same wire functions the server uses.
WorkflowView ViewOf(const sdk::Workflow& w) {
  WorkflowView v;
  v.workflow = {.id = w.id,
                .name = w.name,
                .description = w.description,
                .metadata_json = boost::json::serialize(w.metadata),
                .created_at = w.created_at};
  v.counts = w.counts;
  v.started_at = w.started_at;
  v.finished_at = w.completed_at;
  return v;
}

boost::json::object WorkflowJson(const sdk::Workflow& w) { return wire::WorkflowToJson(ViewOf(w)); }

boost::json::object WorkflowJobJson(const sdk::WorkflowJob& j) {
  WorkflowJobRow row{.member = {.workflow_id = j.workflow_id,
                                .job_id = j.job.id,
                                .key = j.key,
                                .position = j.position},
                     .job = j.job,
                     .mode = j.dependency_mode,
                     .depends_on = j.depends_on};
  // A viewer's answer has no payload: leave it out rather than print null.
  return wire::WorkflowJobToJson(row, j.job.payload != "null");
}

std::string CheckWorkflowStatus(const std::string& text) {
  return ParseWorkflowStatus(text)
             ? ""
             : "'" + text + "' is not a workflow status (pending, running, completed, failed, " +
                   "cancelled)";
}

// "pending 2, blocked 1, completed 1": the non-zero counts.
std::string CountsText(const StatusCounts& counts) {
  std::string out;
  StatusCounts c = counts;
  for (JobStatus s : kAllStatuses) {
    if (c.of(s) == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::string(JobStatusName(s)) + " " + GroupedCount(c.of(s));
  }
  return OrDash(out);
}

std::string ProgressText(const sdk::Workflow& w) {
  return GroupedCount(w.completed_jobs) + " of " + Plural(w.total_jobs, "job") + " completed (" +
         std::to_string(static_cast<int>(w.progress_percent)) + "%), " +
         GroupedCount(w.failed_jobs) + " failed";
}

void PrintFacts(const sdk::Workflow& w, Instant now) {
  Details d;
  d.Add("Workflow", w.id);
  d.Add("Name", w.name);
  if (w.description) d.Add("Description", *w.description);
  d.Add("Status", WorkflowStatusName(w.status));
  d.Add("Progress", ProgressText(w));
  d.Add("Jobs", CountsText(w.counts));
  d.Add("Created", TimeDetail(w.created_at, now));
  d.Add("Started", TimeDetail(w.started_at, now));
  d.Add("Finished", TimeDetail(w.completed_at, now));
  if (!w.metadata.empty()) d.Add("Metadata", boost::json::serialize(w.metadata));
  d.Print(std::cout);
}

void PrintTree(const std::vector<sdk::WorkflowJob>& jobs) {
  Table table({"JOB", "STATUS", "ID"});
  bool repeated = false;
  for (WorkflowTreeRow& row : WorkflowTree(jobs)) {
    repeated = repeated || row.repeated;
    table.AddRow({std::move(row.label), std::move(row.status), std::move(row.job_id)});
  }
  table.Print(std::cout);
  if (repeated) {
    std::cout << "\n* shown above already: a job that waits for several jobs is listed under "
                 "each, its own dependents under the first only\n";
  }
}

// Every job of the workflow, page after page.
Result<std::vector<sdk::WorkflowJob>> AllJobs(sdk::Client& client, const std::string& id) {
  PageReader<sdk::WorkflowJob> read = [&](int offset, int limit) {
    return client.ListWorkflowJobs(id, {.limit = limit, .offset = offset});
  };
  auto listing = ReadPages(read, 0, std::nullopt, kJobsPage);
  if (!listing.ok()) return listing.status();
  return std::move(listing->rows);
}

int RunShow(CliContext& ctx, const std::string& id) {
  auto w = ctx.client().GetWorkflow(id);
  if (!w.ok()) return ReportError(w.status());
  auto jobs = AllJobs(ctx.client(), id);
  if (!jobs.ok()) return ReportError(jobs.status());
  if (ctx.flags.json) {
    boost::json::array out;
    for (const sdk::WorkflowJob& j : *jobs) out.push_back(WorkflowJobJson(j));
    PrintJson(boost::json::object{{"workflow", WorkflowJson(*w)}, {"jobs", std::move(out)}});
    return kExitOk;
  }
  PrintFacts(*w, Now());
  std::cout << "\n";
  PrintTree(*jobs);
  return kExitOk;
}

struct ListFlags {
  std::string status;
  std::optional<int> limit, offset;
  bool all = false;
};

int RunList(CliContext& ctx, const ListFlags& f) {
  if (f.all && f.limit) return UsageError("workflows list: --all and --limit exclude each other");
  if (f.limit && *f.limit < 1) return UsageError("workflows list: --limit must be at least 1");
  if (f.offset && *f.offset < 0) return UsageError("workflows list: --offset must be 0 or more");
  sdk::ListWorkflowsFilter filter;
  if (!f.status.empty()) filter.status = ParseWorkflowStatus(f.status);
  PageReader<sdk::Workflow> read = [&](int offset, int limit) {
    sdk::ListWorkflowsFilter page = filter;
    page.offset = offset;
    page.limit = limit;
    return ctx.client().ListWorkflows(page);
  };
  std::optional<int> want;
  if (!f.all) want = f.limit.value_or(kDefaultWorkflowsListed);
  auto list = ReadPages(read, f.offset.value_or(0), want, kWorkflowsPage);
  if (!list.ok()) return ReportError(list.status());
  if (ctx.flags.json) {
    boost::json::array out;
    for (const sdk::Workflow& w : list->rows) out.push_back(WorkflowJson(w));
    PrintJson(out);
  } else if (list->rows.empty()) {
    std::cout << "no workflows\n";
  } else {
    const Instant now = Now();
    Table table({"ID", "NAME", "STATUS", "DONE", "FAILED", "CREATED"});
    for (const sdk::Workflow& w : list->rows) {
      table.AddRow({w.id, Ellipsize(w.name, 40), WorkflowStatusName(w.status),
                    GroupedCount(w.completed_jobs) + "/" + GroupedCount(w.total_jobs),
                    GroupedCount(w.failed_jobs), TimeCell(w.created_at, now)});
    }
    table.Print(std::cout);
  }
  // On stderr, so that --json and pipes read only the rows.
  if (list->more) std::cerr << MoreHint(list->rows.size(), std::nullopt) << "\n";
  return kExitOk;
}

// What cancel and retry share: one workflow, one call, a question first.
struct Change {
  const char* verb;    // "cancel", "retry"
  const char* done;    // "cancelled", "retried"
  const char* effect;  // what --yes agrees to, for the refusal off a terminal
  Result<sdk::Workflow> (sdk::Client::*call)(const std::string&);
  std::string (*question)(const sdk::Workflow&);
};

std::string CancelQuestion(const sdk::Workflow& w) {
  const StatusCounts& c = w.counts;
  const long long unfinished = c.pending + c.scheduled + c.processing + c.blocked;
  std::string running;
  if (c.processing > 0) running = " (" + GroupedCount(c.processing) + " of them processing)";
  return "Cancel workflow " + w.name + " (" + w.id + ")? Its " +
         Plural(unfinished, "unfinished job") + running + " will be cancelled.";
}

std::string RetryQuestion(const sdk::Workflow& w) {
  const StatusCounts& c = w.counts;
  return "Retry workflow " + w.name + " (" + w.id + ", " + WorkflowStatusName(w.status) +
         ")? Its " +
         Plural(c.deadletter + c.cancelled + c.quarantined, "dead, cancelled or quarantined job") +
         " will run again.";
}

int RunChange(CliContext& ctx, const Change& change, const std::string& id, bool yes) {
  if (!yes) {
    if (!IsTerminal(STDIN_FILENO)) {
      return UsageError(std::string("workflows ") + change.verb + " " + change.effect +
                        ": pass --yes to confirm (stdin is not a terminal)");
    }
    auto w = ctx.client().GetWorkflow(id);
    if (!w.ok()) return ReportError(w.status());
    if (!Confirm(change.question(*w), "yes")) {
      std::cerr << "redrive: not confirmed; nothing " << change.done << "\n";
      return kExitUsage;
    }
  }
  auto w = (ctx.client().*change.call)(id);
  if (!w.ok()) return ReportError(w.status());
  if (ctx.flags.json) {
    PrintJson(WorkflowJson(*w));
    return kExitOk;
  }
  std::cout << change.done << " workflow " << w->id << "\n";
  PrintFacts(*w, Now());
  return kExitOk;
}

void AddReads(CLI::App& workflows, CliContext& ctx) {
  auto* list = workflows.add_subcommand("list", "List workflows, newest first");
  auto f = std::make_shared<ListFlags>();
  list->add_option("--status,-s", f->status, "Only this status")->check(CheckWorkflowStatus);
  list->add_option("--limit,-n", f->limit, "At most this many (default 50; any number, paged)");
  list->add_option("--offset", f->offset, "Skip this many");
  list->add_flag("--all", f->all, "Every matching workflow, page after page");
  list->footer(
      "Statuses are derived from the jobs: pending, running, completed, failed, cancelled.\n"
      "Examples:\n"
      "  redrive workflows list --status failed\n"
      "  redrive workflows list --all --json | jq -r '.[].id'");
  ctx.OnRun(list, [&ctx, f] { return RunList(ctx, *f); });

  auto* show = workflows.add_subcommand("show", "Show a workflow and its jobs as a tree");
  show->alias("get");
  auto id = std::make_shared<std::string>();
  show->add_option("ID", *id, "Workflow id")->required();
  show->footer(
      "Each job is listed under the jobs it waits for, with its status and id; a job\n"
      "waiting for several appears under each, marked * after the first time.\n"
      "With --json: {\"workflow\": Workflow, \"jobs\": [WorkflowJob, ...]}.\n"
      "Example:\n  redrive workflows show 0193a0c4-5e10-7b2a-9d4e-3f1c2b8a7d60");
  ctx.OnRun(show, [&ctx, id] { return RunShow(ctx, *id); });
}

void AddChange(CLI::App& workflows, CliContext& ctx, const Change& change, const char* help,
               const char* footer) {
  auto* cmd = workflows.add_subcommand(change.verb, help);
  auto id = std::make_shared<std::string>();
  auto yes = std::make_shared<bool>(false);
  cmd->add_option("ID", *id, "Workflow id")->required();
  cmd->add_flag("--yes,-y", *yes, "Do not ask; required when stdin is not a terminal");
  cmd->footer(footer);
  ctx.OnRun(cmd, [&ctx, change, id, yes] { return RunChange(ctx, change, *id, *yes); });
}

}  // namespace

void AddWorkflowsCommand(CLI::App& app, CliContext& ctx) {
  auto* workflows = app.add_subcommand("workflows",
                                       "Workflows (jobs that wait for each other): list, show, "
                                       "cancel, retry");
  workflows->require_subcommand(1);
  AddReads(*workflows, ctx);
  AddChange(*workflows, ctx,
            {"cancel", "cancelled", "cancels every unfinished job of the workflow",
             &sdk::Client::CancelWorkflow, &CancelQuestion},
            "Cancel every unfinished job of a workflow (asks for confirmation)",
            "Pending, scheduled and blocked jobs are cancelled at once; a processing job's\n"
            "worker finds its lease gone at its next heartbeat. On a terminal it asks you to\n"
            "type yes.\n"
            "Examples:\n"
            "  redrive workflows cancel ID\n"
            "  redrive workflows cancel ID --yes --why 'bad input file'   # scripts");
  AddChange(*workflows, ctx,
            {"retry", "retried", "redrives the workflow's failed and cancelled jobs",
             &sdk::Client::RetryWorkflow, &RetryQuestion},
            "Run a failed or cancelled workflow's dead, cancelled and quarantined jobs again",
            "Only a failed or cancelled workflow is retried. Its jobs whose dependencies are\n"
            "not met wait blocked again and run as those complete. On a terminal it asks you\n"
            "to type yes.\n"
            "Examples:\n"
            "  redrive workflows retry ID\n"
            "  redrive workflows retry ID --yes --json");
}

}  // namespace redrive::cli
