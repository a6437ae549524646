// The handler of `redrive work`: runs the user's COMMAND once per job and
// turns how it ended into a job outcome.
//
//   exit 0              → complete; stdout is the result if it is JSON, else
//                         {"stdout": first 64 KiB} (nothing when empty)
//   exit 100            → non-retryable failure: straight to the DLQ
//   other exit, signal,
//   --timeout exceeded  → retryable failure
// Failures carry the tail of stderr (what fits in the server's 2 KiB error).
// When the SDK cancels the job (lease lost, or shutdown past the grace
// period) the command is killed: SIGTERM, then SIGKILL after kKillGrace.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "cli/child_process.h"
#include "redrive/worker.h"

namespace redrive::cli {

inline constexpr int kNonRetryableExitCode = 100;
inline constexpr std::chrono::seconds kKillGrace{5};
inline constexpr size_t kStdoutResultLimit = 64 * 1024;
inline constexpr size_t kErrorLimit = 2048;  // the server truncates longer errors

struct JobRunnerOptions {
  std::vector<std::string> command;                  // argv; argv[0] looked up in PATH
  std::optional<std::chrono::milliseconds> timeout;  // per run of the command
  bool verbose = true;                               // one line per job on stderr
};

// The JSON result for a command's stdout (see above); null for empty output.
boost::json::value ResultFromStdout(const std::string& out, bool truncated);
// "<reason>: <stderr tail>", cut from the front to fit kErrorLimit.
std::string FailureMessage(const std::string& reason, const std::string& stderr_tail);
// The environment a job's command gets on top of ours.
std::vector<std::pair<std::string, std::string>> JobEnvironment(const sdk::ClaimedJob& job);

// Runs the command for `job`. Thread-safe: one call per handler slot.
sdk::HandlerResult RunJob(const sdk::JobContext& job, const JobRunnerOptions& options);

}  // namespace redrive::cli
