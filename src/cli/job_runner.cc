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

std::string TrimNewlines(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// A run that ended by itself; the shell's 126/127 are refusals only then.
bool EndedByItself(const RunEnd& end) { return !end.timed_out_after && !end.lease_lost; }

RunEnd EndOf(const ChildProcess& child) {
  return RunEnd{.exit_code = child.exit_code(),
                .term_signal = child.term_signal(),
                .stderr_tail = child.err_tail()};
}

}  // namespace

RunVerdict VerdictOf(const RunEnd& end) {
  if (!EndedByItself(end) || end.term_signal != 0) return RunVerdict::kRetryableFailure;
  switch (end.exit_code) {
    case 0:
      return RunVerdict::kCompleted;
    case kNonRetryableExitCode:
      return RunVerdict::kNonRetryableFailure;
    case kNotExecutableExitCode:
    case kNotFoundExitCode:
      return RunVerdict::kRefused;
    default:
      return RunVerdict::kRetryableFailure;
  }
}

std::string EndReason(const RunEnd& end) {
  if (end.lease_lost) return "lease lost: command killed";
  if (end.timed_out_after) {
    return "timed out after " + FormatDuration(*end.timed_out_after) + ": command killed";
  }
  if (end.term_signal != 0) {
    return "killed by signal " + std::to_string(end.term_signal) + " (" +
           strsignal(end.term_signal) + ")";
  }
  return "exit code " + std::to_string(end.exit_code);
}

std::string FailureError(const RunEnd& end) {
  std::string tail = TrimNewlines(end.stderr_tail);
  if (!EndedByItself(end) || tail.empty()) return FailureMessage(EndReason(end), tail);
  return Utf8Suffix(tail, kErrorLimit);
}

boost::json::object FailureDetails(const RunEnd& end) {
  boost::json::object details;
  if (end.term_signal != 0) {
    details["signal"] = end.term_signal;
    const char* name = sigabbrev_np(end.term_signal);  // "KILL"; null for unknown numbers
    if (name != nullptr) details["signal_name"] = std::string("SIG") + name;
  } else if (EndedByItself(end)) {
    details["exit_code"] = end.exit_code;
  }
  if (end.timed_out_after) details["timed_out_after_ms"] = end.timed_out_after->count();
  if (end.lease_lost) details["lease_lost"] = true;
  return details;
}

std::string RunSummary(const RunEnd& end) {
  std::string line = LastLine(end.stderr_tail);
  std::string excerpt = line.empty() ? "" : ": " + line;
  switch (VerdictOf(end)) {
    case RunVerdict::kCompleted:
      return "completed";
    case RunVerdict::kNonRetryableFailure:
      return "failed for good (exit " + std::to_string(kNonRetryableExitCode) + ")" + excerpt;
    case RunVerdict::kRefused:
      return "could not start (exit " + std::to_string(end.exit_code) + ")" + excerpt;
    case RunVerdict::kRetryableFailure:
      return "failed: " + EndReason(end) + excerpt;
  }
  return "";
}

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
  std::string tail = TrimNewlines(stderr_tail);
  if (tail.empty()) return reason;
  std::string prefix = reason + ": ";
  if (prefix.size() >= kErrorLimit) return Utf8Prefix(reason, kErrorLimit);
  return prefix + Utf8Suffix(tail, kErrorLimit - prefix.size());
}

std::string LastLine(const std::string& text) {
  std::string trimmed = TrimNewlines(text);
  size_t newline = trimmed.find_last_of('\n');
  std::string line = newline == std::string::npos ? trimmed : trimmed.substr(newline + 1);
  while (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.size() <= kLogExcerptLimit) return line;
  return Utf8Prefix(line, kLogExcerptLimit) + "…";
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
  RunEnd end;
  if ((*child)->WaitFor(deadline, [&job] { return job.cancelled(); })) {
    end = EndOf(**child);
  } else {
    (*child)->Terminate(kKillGrace);
    end = EndOf(**child);
    if (job.cancelled())
      end.lease_lost = true;
    else
      end.timed_out_after = options.timeout;
  }
  RunVerdict verdict = VerdictOf(end);
  if (verdict == RunVerdict::kRefused && !options.on_refused) {
    verdict = RunVerdict::kRetryableFailure;
  }
  if (options.verbose || verdict == RunVerdict::kRefused) {
    auto took = std::chrono::duration_cast<Micros>(SteadyClock::now() - started);
    Log(job, RunSummary(end) + " in " + FormatDuration(took));
  }
  switch (verdict) {
    case RunVerdict::kCompleted:
      return sdk::HandlerResult::Success(
          ResultFromStdout((*child)->out(), (*child)->out_truncated()));
    case RunVerdict::kNonRetryableFailure:
      return sdk::HandlerResult::NonRetryableFailure(FailureError(end))
          .WithDetails(FailureDetails(end));
    case RunVerdict::kRefused:
      options.on_refused(EndReason(end) + (LastLine(end.stderr_tail).empty()
                                               ? ""
                                               : ": " + LastLine(end.stderr_tail)));
      // Report nothing: the SDK cancels this job at shutdown and drops what
      // we return, and deregistering puts it back to pending uncharged.
      job.token().Wait();
      return sdk::HandlerResult::RetryableFailure(FailureError(end));
    case RunVerdict::kRetryableFailure:
      break;
  }
  return sdk::HandlerResult::RetryableFailure(FailureError(end)).WithDetails(FailureDetails(end));
}

}  // namespace redrive::cli
