// `redrive workers list`: the worker registry.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/table.h"
#include "wire/worker_json.h"

namespace redrive::cli {
namespace {

int RunList(CliContext& ctx) {
  auto workers = ctx.client().ListWorkers();
  if (!workers.ok()) return ReportError(workers.status());
  if (ctx.flags.json) {
    boost::json::array array;
    for (const auto& w : *workers) array.push_back(wire::WorkerToJson(w));
    PrintJson(array);
    return kExitOk;
  }
  if (workers->empty()) {
    std::cout << "no workers\n";
    return kExitOk;
  }
  Instant now = SystemClock().Now();
  Table table({"ID", "QUEUE", "HOST", "STATUS", "JOBS", "TYPE", "LAST SEEN"});
  for (const auto& w : *workers) {
    table.AddRow({w.id, w.queue_name, w.hostname, w.status,
                  std::to_string(w.current_jobs) + "/" + std::to_string(w.max_concurrency),
                  w.worker_type.value_or("-"), TimeCell(w.last_heartbeat_at, now)});
  }
  table.Print(std::cout);
  return kExitOk;
}

}  // namespace

void AddWorkersCommand(CLI::App& app, CliContext& ctx) {
  auto* workers = app.add_subcommand("workers", "The worker registry");
  workers->require_subcommand(1);
  auto* list = workers->add_subcommand("list", "List registered workers, oldest first");
  list->footer("Examples:\n  redrive workers list\n  redrive workers list --json");
  ctx.OnRun(list, [&ctx] { return RunList(ctx); });
}

}  // namespace redrive::cli
