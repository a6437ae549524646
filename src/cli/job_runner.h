// The handler of `redrive work`: runs the user's COMMAND once per job and
// turns how it ended into a job outcome.
//
//   exit 0              → complete; stdout is the result if it is JSON, else
//                         {"stdout": first 64 KiB} (nothing when empty)
//   exit 100            → non-retryable failure: straight to the DLQ
//   exit 126, 127       → the command could not start (a shell's "not
//                         executable", "not found"): a refusal, not a
//                         failure of the job; see JobRunnerOptions::on_refused
//   other exit, signal,
//   --timeout exceeded  → retryable failure
// A failure's error is the command's own message: the end of its stderr
// (what fits in the server's 2 KiB error), or "exit code 1" / "killed by
// signal 9 (Killed)" when it wrote none. How it ended goes with the failure as
// the attempt's details ({"exit_code": 1}, {"signal": 9}), which the server
// keeps in the job's history. When --timeout or the SDK (lease lost, shutdown
// past the grace period) ends the command, the error says so first
// ("timed out after 2m: command killed: <stderr>").
// Killing is SIGTERM, then SIGKILL after kKillGrace.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/child_process.h"
#include "redrive/worker.h"

namespace redrive::cli {

inline constexpr int kNonRetryableExitCode = 100;
inline constexpr int kNotExecutableExitCode = 126, kNotFoundExitCode = 127;
inline constexpr std::chrono::seconds kKillGrace{5};
inline constexpr size_t kStdoutResultLimit = 64 * 1024;
inline constexpr size_t kErrorLimit = 2048;  // the server truncates longer errors
inline constexpr size_t kLogExcerptLimit = 200;

struct JobRunnerOptions {
  std::vector<std::string> command;                  // argv; argv[0] looked up in PATH
  std::optional<std::chrono::milliseconds> timeout;  // per run of the command
  bool verbose = true;                               // one line per job on stderr
  // Called (from the handler's thread) when the command exits 126 or 127,
  // with the reason. The handler then reports nothing: it waits until the
  // SDK cancels its job, so the job is released (not failed) when the worker
  // stops. Unset: 126 and 127 are retryable failures like any other code.
  std::function<void(const std::string& reason)> on_refused;
};

// How one run of the command ended.
struct RunEnd {
  int exit_code = 0;    // when it exited by itself
  int term_signal = 0;  // killed by this signal (0: exited)
  // Ended by us: --timeout passed (its length), or the SDK cancelled the job.
  std::optional<std::chrono::milliseconds> timed_out_after;
  bool lease_lost = false;
  std::string stderr_tail;
};

enum class RunVerdict { kCompleted, kRetryableFailure, kNonRetryableFailure, kRefused };
RunVerdict VerdictOf(const RunEnd& end);
// "exit code 1", "killed by signal 9 (Killed)", "timed out after 2m: command
// killed", "lease lost: command killed".
std::string EndReason(const RunEnd& end);
// The job's error for a failed run (see above), at most kErrorLimit bytes.
std::string FailureError(const RunEnd& end);
// {"exit_code": N} or {"signal": N, "signal_name": "..."}, plus
// "timed_out_after_ms" or "lease_lost" when we ended it.
boost::json::object FailureDetails(const RunEnd& end);
// The log line's text: "failed: exit code 1: <last line of stderr>".
std::string RunSummary(const RunEnd& end);

// The JSON result for a command's stdout (see above); null for empty output.
boost::json::value ResultFromStdout(const std::string& out, bool truncated);
// "<reason>: <stderr tail>", cut from the front to fit kErrorLimit.
std::string FailureMessage(const std::string& reason, const std::string& stderr_tail);
// The last non-empty line of `text`, at most kLogExcerptLimit bytes.
std::string LastLine(const std::string& text);
// The environment a job's command gets on top of ours.
std::vector<std::pair<std::string, std::string>> JobEnvironment(const sdk::ClaimedJob& job);

// Runs the command for `job`. Thread-safe: one call per handler slot.
sdk::HandlerResult RunJob(const sdk::JobContext& job, const JobRunnerOptions& options);

}  // namespace redrive::cli
