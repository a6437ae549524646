#include "cli/job_runner.h"

#include <string.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <iostream>
#include <mutex>

#include "core/time_format.h"
#include "core/utf8.h"

namespace redrive::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;

void Log(const sdk::JobContext& job, const std::string& what) {
  static std::mutex mu;  // lines from concurrent slots must not interleave
  std::lock_guard lock(mu);
  std::cerr << "redrive work: job " << job.id() << " attempt " << job.retry_count() + 1 << ": "
            << what << "\n";
}

// How the command ended, as a reason for a failure.
std::string ExitReason(const ChildProcess& child) {
  if (child.term_signal() != 0) {
    return std::string("killed by signal ") + std::to_string(child.term_signal()) + " (" +
           strsignal(child.term_signal()) + ")";
  }
  return "exit code " + std::to_string(child.exit_code());
}

sdk::HandlerResult Outcome(const ChildProcess& child, std::string* summary) {
  if (child.term_signal() == 0 && child.exit_code() == 0) {
    *summary = "completed";
    return sdk::HandlerResult::Success(ResultFromStdout(child.out(), child.out_truncated()));
  }
  std::string error = FailureMessage(ExitReason(child), child.err_tail());
  if (child.term_signal() == 0 && child.exit_code() == kNonRetryableExitCode) {
    *summary = "failed for good (exit " + std::to_string(kNonRetryableExitCode) + ")";
    return sdk::HandlerResult::NonRetryableFailure(error);
  }
  *summary = "failed: " + ExitReason(child);
  return sdk::HandlerResult::RetryableFailure(error);
}

}  // namespace

boost::json::value ResultFromStdout(const std::string& out, bool truncated) {
  if (out.find_first_not_of(" \t\r\n") == std::string::npos) return nullptr;
  if (!truncated) {
    boost::system::error_code ec;
    boost::json::value parsed = boost::json::parse(out, ec);
    if (!ec) return parsed;
  }
  return boost::json::object{{"stdout", Utf8Prefix(out, kStdoutResultLimit)}};
}

std::string FailureMessage(const std::string& reason, const std::string& stderr_tail) {
  std::string tail = stderr_tail;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
  if (tail.empty()) return reason;
  std::string prefix = reason + ": ";
  if (prefix.size() >= kErrorLimit) return Utf8Prefix(reason, kErrorLimit);
  return prefix + Utf8Suffix(tail, kErrorLimit - prefix.size());
}

std::vector<std::pair<std::string, std::string>> JobEnvironment(const sdk::ClaimedJob& job) {
  return {{"REDRIVE_JOB_ID", job.id},
          {"REDRIVE_QUEUE", job.queue_name},
          {"REDRIVE_ATTEMPT", std::to_string(job.retry_count + 1)},
          {"REDRIVE_MAX_RETRIES", std::to_string(job.max_retries)},
          {"REDRIVE_RETRIES_LEFT", std::to_string(std::max(0, job.max_retries - job.retry_count))}};
}

sdk::HandlerResult RunJob(const sdk::JobContext& job, const JobRunnerOptions& options) {
  ChildSpec spec{.argv = options.command,
                 .env = JobEnvironment(job.job()),
                 .stdin_data = boost::json::serialize(job.payload())};
  auto started = SteadyClock::now();
  auto child = ChildProcess::Spawn(spec);
  if (!child.ok()) return sdk::HandlerResult::RetryableFailure(child.status().message());
  auto deadline = options.timeout ? started + *options.timeout : SteadyClock::time_point::max();
  bool exited = (*child)->WaitFor(deadline, [&job] { return job.cancelled(); });
  std::string summary;
  sdk::HandlerResult result = sdk::HandlerResult::RetryableFailure("");
  if (!exited) {
    (*child)->Terminate(kKillGrace);
    std::string reason = job.cancelled() ? "lease lost: command killed"
                                         : "timed out after " + FormatDuration(*options.timeout) +
                                               ": command killed";
    summary = reason;
    result = sdk::HandlerResult::RetryableFailure(FailureMessage(reason, (*child)->err_tail()));
  } else {
    result = Outcome(**child, &summary);
  }
  if (options.verbose) {
    auto took = std::chrono::duration_cast<Micros>(SteadyClock::now() - started);
    Log(job, summary + " in " + FormatDuration(took));
  }
  return result;
}

}  // namespace redrive::cli
