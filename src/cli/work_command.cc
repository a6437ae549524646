// `redrive work QUEUE [-c N] [--lease 30s] [--timeout D] -- COMMAND ARGS…`: a
// worker for any language, built on the SDK's Worker (claiming with acks and
// prefetch, heartbeats, graceful shutdown); job_runner.h runs COMMAND per job.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <mutex>

#include "cli/command_lookup.h"
#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/job_runner.h"
#include "cli/output.h"
#include "core/time_format.h"
#include "redrive/worker.h"

namespace redrive::cli {
namespace {

struct WorkFlags {
  std::string queue;
  std::vector<std::string> command;
  int concurrency = 1;
  int prefetch = -1;  // the SDK's default
  bool no_batch_acks = false;
  std::string lease = "30s", timeout, grace = "30s";
  std::string worker_id;
  bool quiet = false;
};

sdk::WorkerOptions MakeWorkerOptions(const WorkFlags& f) {
  sdk::WorkerOptions options;
  options.queue = f.queue;
  options.concurrency = f.concurrency;
  options.prefetch = f.prefetch;
  options.batch_acks = !f.no_batch_acks;
  options.lease = std::chrono::seconds(CeilSeconds(*ParseDuration(f.lease)));
  options.grace_period = *ParseDuration(f.grace);
  options.worker_type = "redrive-work";
  options.version = REDRIVE_VERSION;
  options.worker_id = f.worker_id;
  return options;
}

// The first refusal (exit 126/127) of any slot. The handler that sees it
// asks the worker to stop (SIGTERM to ourselves: RunUntilSignal sigwaits it).
class Refusal {
 public:
  void Record(const std::string& reason) {
    std::lock_guard lock(mu_);
    if (!reason_.empty()) return;
    reason_ = reason;
    kill(getpid(), SIGTERM);
  }
  std::string reason() const {
    std::lock_guard lock(mu_);
    return reason_;
  }

 private:
  mutable std::mutex mu_;
  std::string reason_;
};

int RunWork(CliContext& ctx, const WorkFlags& f) {
  if (f.command.empty()) return UsageError("work: give the command to run after --");
  if (f.concurrency < 1) return UsageError("work: -c must be at least 1");
  if (f.prefetch < -1) return UsageError("work: --prefetch must be 0 or more");
  // Before claiming anything: a typo must not fail every job with exit 127.
  auto program = FindExecutable(f.command[0]);
  if (!program.ok()) {
    return UsageError("work: " + program.status().message() + " (no job was claimed)");
  }
  auto refusal = std::make_shared<Refusal>();
  JobRunnerOptions runner{.command = f.command,
                          .verbose = !f.quiet,
                          .on_refused = [refusal](const std::string& r) { refusal->Record(r); }};
  if (!f.timeout.empty()) runner.timeout = *ParseDuration(f.timeout);
  sdk::Worker worker(ctx.shared_client(), MakeWorkerOptions(f),
                     [runner](const sdk::JobContext& job) { return RunJob(job, runner); });
  worker.OnError([](const Status& st) {
    std::cerr << "redrive work: " << ErrorCodeName(st.code()) << ": " << st.message() << "\n";
  });
  if (!f.quiet) {
    worker.OnDeath(
        [](const sdk::ClaimedJob& job, const sdk::FailResult& r, const std::string& error) {
          std::cerr << "redrive work: job " << job.id << " went to the DLQ ("
                    << DeadReasonName(r.dead_reason) << "): " << LastLine(error) << "\n";
        });
    std::cerr << "redrive work: running `" << f.command[0] << "` for queue " << f.queue << " with "
              << Plural(f.concurrency, "slot") << "; SIGTERM or Ctrl-C stops gracefully\n";
  }
  Status st = worker.RunUntilSignal();
  if (!st.ok()) return ReportError(st);
  if (std::string reason = refusal->reason(); !reason.empty()) {
    std::cerr << "redrive work: stopped: `" << f.command[0] << "` could not start (" << reason
              << "); its job went back to pending without charging a retry\n";
    return kExitRefused;
  }
  if (!f.quiet) std::cerr << "redrive work: stopped\n";
  return kExitOk;
}

}  // namespace

void AddWorkCommand(CLI::App& app, CliContext& ctx) {
  auto* cmd =
      app.add_subcommand("work", "Run COMMAND once per job of QUEUE: a worker for any language");
  auto f = std::make_shared<WorkFlags>();
  cmd->add_option("QUEUE", f->queue, "Queue to work on")->required();
  cmd->add_option("COMMAND", f->command, "Command and its arguments (after --); no shell")
      ->required();
  cmd->add_option("-c,--concurrency", f->concurrency, "Jobs run at once")->capture_default_str();
  cmd->add_option("--prefetch", f->prefetch,
                  "Jobs claimed beyond the free slots, started as slots free up "
                  "(default: -c/4, at least 1, when -c > 1; 0: off)");
  cmd->add_flag("--no-batch-acks", f->no_batch_acks,
                "One complete request per job, instead of acks carried by the next claim");
  cmd->add_option("--lease", f->lease, "Lease per claim, renewed by heartbeats (5s..1h)")
      ->check(CheckDuration)
      ->capture_default_str();
  cmd->add_option("--timeout", f->timeout, "Kill COMMAND after this long: a retryable failure")
      ->check(CheckDuration);
  cmd->add_option("--grace", f->grace, "On SIGTERM/SIGINT, let running commands finish this long")
      ->check(CheckDuration)
      ->capture_default_str();
  cmd->add_option("--worker-id", f->worker_id, "Worker id (default HOSTNAME-PID-N)");
  cmd->add_flag("--quiet", f->quiet, "No per-job lines on stderr");
  cmd->footer(
      "COMMAND gets the payload JSON on stdin and REDRIVE_JOB_ID, REDRIVE_QUEUE,\n"
      "REDRIVE_ATTEMPT (1 on the first run), REDRIVE_MAX_RETRIES and REDRIVE_RETRIES_LEFT.\n"
      "  exit 0    complete; stdout is the result if it is JSON, else {\"stdout\": \"...\"}\n"
      "  exit 100  failed for good: no retry, straight to the DLQ\n"
      "  exit 126, 127  COMMAND could not start (not executable, not found): the job goes\n"
      "            back to pending uncharged, and `redrive work` stops (exit 1)\n"
      "  other exit codes, signals, --timeout: retry, with the end of stderr as the error\n"
      "COMMAND must exist (a path, or a name in PATH) before any job is claimed.\n"
      "Examples:\n"
      "  redrive work emails -- ./send_email.py\n"
      "  redrive work thumbs -c 4 --timeout 2m -- convert-thumb --size 128");
  ctx.OnRun(cmd, [&ctx, f] { return RunWork(ctx, *f); });
}

}  // namespace redrive::cli
