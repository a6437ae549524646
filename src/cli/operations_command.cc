// `redrive operations list|show|cancel`: bulk operations (retry, purge,
// cancel, release, move over a selector) the server runs in the background.
#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/serialize.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/operation_progress.h"
#include "cli/output.h"
#include "cli/table.h"
#include "wire/operation_json.h"

namespace redrive::cli {
namespace {

std::string Verb(OperationAction a) {
  switch (a) {
    case OperationAction::kRetry:
      return "retried";
    case OperationAction::kPurge:
      return "purged";
    case OperationAction::kCancel:
      return "cancelled";
    case OperationAction::kRelease:
      return "released";
    case OperationAction::kMove:
      return "moved";
  }
  return "handled";
}

int RunList(CliContext& ctx, int limit) {
  auto ops = ctx.client().ListOperations(limit, 0);
  if (!ops.ok()) return ReportError(ops.status());
  const Instant now = SystemClock().Now();
  if (ctx.flags.json) {
    boost::json::array out;
    for (const Operation& op : *ops) out.push_back(wire::OperationToJson(op, now));
    PrintJson(out);
    return kExitOk;
  }
  if (ops->empty()) {
    std::cout << "no operations\n";
    return kExitOk;
  }
  Table table({"ID", "ACTION", "STATE", "DONE", "MATCHED", "FAILED", "BY", "CREATED", "SELECTOR"});
  for (const Operation& op : *ops) {
    table.AddRow({op.id, OperationActionName(op.action), OperationStateName(op.state),
                  GroupedCount(op.done), GroupedCount(op.matched), GroupedCount(op.failed),
                  op.created_by, TimeCell(op.created_at, now), op.selector_json});
  }
  table.Print(std::cout);
  return kExitOk;
}

int RunShow(CliContext& ctx, const std::string& id, bool follow) {
  auto op = ctx.client().GetOperation(id);
  if (!op.ok()) return ReportError(op.status());
  if (follow && !IsFinished(op->state)) return FollowOperation(ctx, id, Verb(op->action));
  const Instant now = SystemClock().Now();
  if (ctx.flags.json) {
    PrintJson(wire::OperationToJson(*op, now));
    return kExitOk;
  }
  std::cout << "id:          " << op->id << "\n"
            << "action:      " << OperationActionName(op->action) << "\n"
            << "selector:    " << op->selector_json << "\n"
            << "progress:    " << OperationLine(*op, Verb(op->action)) << "\n"
            << "created:     " << TimeDetail(op->created_at, now) << " by " << op->created_by
            << "\n"
            << "started:     " << TimeDetail(op->started_at, now) << "\n"
            << "finished:    " << TimeDetail(op->finished_at, now) << "\n";
  if (op->rate_per_second) std::cout << "rate:        " << *op->rate_per_second << "/s\n";
  if (op->budget) std::cout << "budget:      " << RetryBudgetText(*op->budget) << "\n";
  if (op->target_queue) std::cout << "to queue:    " << *op->target_queue << "\n";
  if (op->reason) std::cout << "reason:      " << *op->reason << "\n";
  if (op->error) std::cout << "error:       " << *op->error << "\n";
  return kExitOk;
}

int RunCancel(CliContext& ctx, const std::string& id) {
  auto op = ctx.client().CancelOperation(id);
  if (!op.ok()) return ReportError(op.status());
  if (ctx.flags.json) {
    PrintJson(wire::OperationToJson(*op, SystemClock().Now()));
  } else {
    std::cout << "cancelled operation " << op->id << " after " << GroupedCount(op->done) << " of "
              << GroupedCount(op->matched) << " jobs\n";
  }
  return kExitOk;
}

}  // namespace

void AddOperationsCommand(CLI::App& app, CliContext& ctx) {
  auto* ops = app.add_subcommand(
      "operations", "Bulk operations the server runs in the background: list, show, cancel");
  ops->require_subcommand(1);
  auto* list = ops->add_subcommand("list", "Operations, newest first");
  auto limit = std::make_shared<int>(20);
  list->add_option("--limit", *limit, "How many (1..100, default 20)")->check(CLI::Range(1, 100));
  ctx.OnRun(list, [&ctx, limit] { return RunList(ctx, *limit); });

  auto* show = ops->add_subcommand("show", "One operation: selector, progress, ETA");
  auto id = std::make_shared<std::string>();
  auto follow = std::make_shared<bool>(false);
  show->add_option("ID", *id, "Operation id")->required();
  show->add_flag("--follow,-f", *follow, "Follow its progress until it finishes");
  ctx.OnRun(show, [&ctx, id, follow] { return RunShow(ctx, *id, *follow); });

  auto* cancel = ops->add_subcommand("cancel", "Stop an operation before its next batch");
  auto cancel_id = std::make_shared<std::string>();
  cancel->add_option("ID", *cancel_id, "Operation id")->required();
  ctx.OnRun(cancel, [&ctx, cancel_id] { return RunCancel(ctx, *cancel_id); });
  ops->footer(
      "Examples:\n"
      "  redrive dlq retry --queue payments --all     # creates an operation, with a progress bar\n"
      "  redrive operations list\n"
      "  redrive operations show 01936f7e-... --follow\n"
      "  redrive operations cancel 01936f7e-...");
}

}  // namespace redrive::cli
