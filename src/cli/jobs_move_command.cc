// `redrive jobs move --queue A --to B [--status S] [--tag T] [--fingerprint F]`:
// moves the waiting (pending, scheduled), dead and quarantined jobs of a
// queue to another through a `move` operation on the server (POST
// /operations), followed with a progress bar; --dry-run counts them.
// Processing and blocked jobs are never moved (core/operation.h).
#include <CLI/CLI.hpp>
#include <boost/json/object.hpp>
#include <iostream>

#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/operation_progress.h"
#include "cli/output.h"
#include "core/job.h"

namespace redrive::cli {
namespace {

struct MoveFlags {
  std::string queue, to, status, tag, fingerprint, rate;
  bool dry_run = false;
};

sdk::OperationRequest RequestOf(const MoveFlags& f) {
  sdk::OperationRequest request;
  request.action = "move";
  request.selector["queue_name"] = f.queue;
  if (!f.status.empty()) request.selector["status"] = f.status;
  if (!f.tag.empty()) request.selector["tag"] = f.tag;
  if (!f.fingerprint.empty()) request.selector["fingerprint"] = f.fingerprint;
  if (!f.rate.empty()) request.rate_per_second = ParseRate(f.rate);
  request.target_queue = f.to;
  return request;
}

int RunMove(CliContext& ctx, const MoveFlags& f) {
  if (f.queue == f.to) return UsageError("jobs move: --to must differ from --queue");
  const sdk::OperationRequest request = RequestOf(f);
  if (!f.dry_run) return RunOperationToEnd(ctx, request, "moved");
  auto preview = ctx.client().PreviewOperation(request);
  if (!preview.ok()) return ReportError(preview.status());
  if (ctx.flags.json) {
    PrintJson(boost::json::object{{"dry_run", true}, {"matched_count", preview->matched_count}});
  } else {
    std::cout << "would move " << GroupedCount(preview->matched_count) << " jobs from " << f.queue
              << " to " << f.to << " (dry run; nothing changed)\n";
  }
  return kExitOk;
}

}  // namespace

void AddJobsMove(CLI::App& jobs, CliContext& ctx) {
  auto* cmd = jobs.add_subcommand(
      "move", "Move a queue's waiting, dead or quarantined jobs to another queue");
  auto f = std::make_shared<MoveFlags>();
  cmd->add_option("--queue,-q", f->queue, "The queue the jobs are in")->required();
  cmd->add_option("--to", f->to, "The queue they go to (created if new)")->required();
  cmd->add_option("--status", f->status,
                  "Only jobs in this status: pending, scheduled, deadletter or quarantined "
                  "(default: all four; processing and blocked jobs never move)")
      ->check(CLI::IsMember({"pending", "scheduled", "deadletter", "quarantined"}));
  cmd->add_option("--tag", f->tag, "Only jobs with this tag (key=value or key)");
  cmd->add_option("--fingerprint", f->fingerprint,
                  "Only dead or quarantined jobs of this error class (16 hex digits)");
  cmd->add_option("--rate", f->rate, "Spread the move: 50/s, 600/m")
      ->check([](const std::string& text) -> std::string {
        return ParseRate(text) ? "" : "'" + text + "' is not a rate (50/s, 600/m, 0.5/s)";
      });
  cmd->add_flag("--dry-run", f->dry_run, "Only count what would move");
  cmd->footer(
      "Each job keeps its status: a pending job runs from the new queue, a dead one waits\n"
      "in its DLQ. The server moves them in batches; closing the terminal does not stop it\n"
      "(redrive operations cancel ID does).\n"
      "Examples:\n"
      "  redrive jobs move --queue payments --to payments-slow --dry-run\n"
      "  redrive --why 'INC-4411' jobs move --queue payments --to payments-slow --status pending\n"
      "  redrive jobs move --queue payments --to payments-quarantine --status quarantined");
  ctx.OnRun(cmd, [&ctx, f] { return RunMove(ctx, *f); });
}

}  // namespace redrive::cli
