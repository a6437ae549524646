#include "cli/operation_progress.h"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <thread>

#include "cli/durations.h"
#include "cli/output.h"
#include "cli/progress_bar.h"
#include "core/clock.h"
#include "core/time_format.h"
#include "wire/operation_json.h"

namespace redrive::cli {
namespace {

constexpr auto kPollInterval = std::chrono::seconds(1);

int Finish(CliContext& ctx, const Operation& op, const std::string& verb) {
  if (ctx.flags.json) {
    PrintJson(wire::OperationToJson(op, SystemClock().Now()));
  } else {
    std::cout << "operation " << op.id << " " << OperationLine(op, verb) << "\n";
  }
  if (op.state == OperationState::kCompleted) return kExitOk;
  return ReportError(Status::Conflict(
      "operation " + op.id + " " + OperationStateName(op.state) +
      (op.error ? ": " + *op.error : std::string(" before it handled every job"))));
}

}  // namespace

std::string OperationLine(const Operation& op, const std::string& verb) {
  std::string line = std::string(OperationStateName(op.state)) + ": " + verb + " " +
                     GroupedCount(op.done) + " of " + GroupedCount(op.matched);
  if (op.failed > 0) line += " (" + GroupedCount(op.failed) + " failed)";
  const Instant now = SystemClock().Now();
  if (std::optional<Instant> eta = EstimatedFinish(op, now)) {
    line += ", done " + (*eta <= now ? std::string("now") : FormatRelative(*eta, now));
  }
  return line;
}

int FollowOperation(CliContext& ctx, const std::string& id, const std::string& verb) {
  const bool terminal = IsTerminal(STDERR_FILENO) && !ctx.flags.json;
  ProgressBar bar(terminal, 0);
  long long shown = -1;
  std::optional<OperationState> shown_state;
  size_t total = 0;
  while (true) {
    auto op = ctx.client().GetOperation(id);
    if (!op.ok()) {
      bar.Finish();
      return ReportError(op.status());
    }
    const size_t matched = static_cast<size_t>(std::max<long long>(op->matched, 1));
    if (op->state != OperationState::kQueued && matched != total) {
      bar = ProgressBar(terminal, matched);  // its total known once it started
      total = matched;
    }
    const long long handled = op->done + op->failed;
    if (terminal) {
      bar.Update(static_cast<size_t>(handled), OperationLine(*op, verb));
    } else if ((handled != shown || shown_state != op->state) && !ctx.flags.json) {
      std::cerr << OperationLine(*op, verb) << "\n";
    }
    shown = handled;
    shown_state = op->state;
    if (IsFinished(op->state)) {
      bar.Finish();
      return Finish(ctx, *op, verb);
    }
    std::this_thread::sleep_for(kPollInterval);
  }
}

int RunOperationToEnd(CliContext& ctx, const sdk::OperationRequest& request,
                      const std::string& verb) {
  auto op = ctx.client().CreateOperation(request);
  if (!op.ok()) return ReportError(op.status());
  if (!ctx.flags.json) {
    std::cerr << "operation " << op->id << ": " << request.action << " of "
              << GroupedCount(op->matched) << " matching jobs (redrive operations cancel " << op->id
              << " stops it)\n";
  }
  return FollowOperation(ctx, op->id, verb);
}

}  // namespace redrive::cli
