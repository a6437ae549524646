// `redrive enqueue QUEUE [JSON | - | --file jobs.ndjson]`: one job from an
// argument (or stdin), or many from an NDJSON file through bulk enqueue.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include "cli/bulk_import.h"
#include "cli/commands.h"
#include "cli/durations.h"
#include "cli/output.h"
#include "cli/progress_bar.h"
#include "core/time_format.h"

namespace redrive::cli {
namespace {

struct EnqueueFlags {
  std::string queue, json, file, delay, at, expires_in, timeout;
  std::optional<int> priority, max_retries;
  std::optional<std::string> idempotency_key, completion_webhook;
  std::vector<std::string> tags;
};

std::string CheckTime(const std::string& text) {
  return ParseTime(text) ? "" : "'" + text + "' is not an RFC 3339 time (2030-01-01T09:00:00Z)";
}

// The fields every job of this command shares, from the flags.
sdk::BulkJob JobTemplate(const EnqueueFlags& f) {
  sdk::BulkJob job;
  Instant now = SystemClock().Now();
  job.priority = f.priority;
  job.max_retries = f.max_retries;
  if (!f.timeout.empty())
    job.timeout_seconds = static_cast<int>(CeilSeconds(*ParseDuration(f.timeout)));
  if (!f.delay.empty()) job.scheduled_at = now + *ParseDuration(f.delay);
  if (!f.at.empty()) job.scheduled_at = *ParseTime(f.at);
  if (!f.expires_in.empty()) job.expires_at = now + *ParseDuration(f.expires_in);
  for (const auto& tag : f.tags) job.tags.insert(*SplitTag(tag));
  job.completion_webhook = f.completion_webhook;
  return job;
}

int RunOne(CliContext& ctx, const EnqueueFlags& f) {
  std::string text = f.json;
  if (text == "-") text.assign(std::istreambuf_iterator<char>(std::cin), {});
  boost::system::error_code ec;
  boost::json::value payload = boost::json::parse(text, ec);
  if (ec) return UsageError("the payload is not JSON: " + ec.message());
  sdk::BulkJob t = JobTemplate(f);
  sdk::EnqueueRequest request{.queue_name = f.queue,
                              .payload = std::move(payload),
                              .priority = t.priority,
                              .max_retries = t.max_retries,
                              .timeout_seconds = t.timeout_seconds,
                              .scheduled_at = t.scheduled_at,
                              .expires_at = t.expires_at,
                              .tags = t.tags,
                              .idempotency_key = f.idempotency_key,
                              .completion_webhook = t.completion_webhook};
  auto result = ctx.client().Enqueue(request);
  if (!result.ok()) return ReportError(result.status());
  if (ctx.flags.json)
    PrintJson({{"id", result->id}, {"created", result->created}});
  else if (result->created)
    std::cout << result->id << "\n";
  else
    std::cout << result->id << " (already enqueued with this idempotency key)\n";
  return kExitOk;
}

void PrintSummary(const CliContext& ctx, const ImportSummary& s) {
  if (ctx.flags.json) {
    boost::json::array failed;
    for (const auto& f : s.failures)
      failed.push_back({{"line", f.line}, {"code", f.code}, {"error", f.message}});
    boost::json::object out{
        {"lines", s.lines}, {"enqueued", s.enqueued}, {"existing", s.existing}, {"failed", failed}};
    if (!s.aborted.ok()) out["aborted"] = s.aborted.ToString();
    PrintJson(out);
    return;
  }
  std::cout << "enqueued " << Plural(s.enqueued, "job");
  if (s.existing > 0) std::cout << " (" << GroupedCount(s.existing) << " more already existed)";
  std::cout << " from " << Plural(s.lines, "line") << "\n";
  if (!s.failures.empty()) {
    std::cerr << Plural(static_cast<long long>(s.failures.size()), "line") << " failed:\n";
  }
  for (const auto& f : s.failures) {
    std::cerr << "  line " << f.line << ": " << f.code << ": " << f.message << "\n";
  }
  if (!s.aborted.ok()) {
    std::cerr << "redrive: stopped at line " << s.lines << ": " << s.aborted.ToString()
              << " (the lines of that batch and after were not enqueued)\n";
  }
}

int RunFile(CliContext& ctx, const EnqueueFlags& f) {
  std::ifstream file;
  std::istream* in = &std::cin;
  size_t total_bytes = 0;
  if (f.file != "-") {
    file.open(f.file);
    if (!file) return UsageError("cannot read " + f.file);
    in = &file;
    std::error_code ec;
    total_bytes = static_cast<size_t>(std::filesystem::file_size(f.file, ec));
  }
  ImportOptions options;
  options.queue = f.queue;
  options.job_template = JobTemplate(f);
  options.idempotency_key = f.idempotency_key;
  ProgressBar bar(IsTerminal(STDERR_FILENO), total_bytes);
  options.on_progress = [&bar](const ImportSummary& s, size_t bytes) {
    bar.Update(bytes, Plural(s.enqueued + s.existing, "job") + ", " +
                          GroupedCount(static_cast<long long>(s.failures.size())) + " failed");
  };
  ImportSummary summary = ImportNdjson(ctx.client(), *in, options);
  bar.Finish();
  PrintSummary(ctx, summary);
  // Any failed line fails the command, so a script notices a partial import.
  return summary.failures.empty() && summary.aborted.ok() ? kExitOk : kExitRefused;
}

int RunEnqueue(CliContext& ctx, const EnqueueFlags& f) {
  if (!f.file.empty() && !f.json.empty())
    return UsageError("enqueue: give a JSON payload or --file, not both");
  if (f.file.empty() && f.json.empty()) {
    return UsageError("enqueue: give a JSON payload, - to read it from stdin, or --file FILE");
  }
  if (!f.delay.empty() && !f.at.empty())
    return UsageError("enqueue: --delay and --at exclude each other");
  return f.file.empty() ? RunOne(ctx, f) : RunFile(ctx, f);
}

}  // namespace

void AddEnqueueCommand(CLI::App& app, CliContext& ctx) {
  auto* cmd = app.add_subcommand("enqueue", "Add a job (or an NDJSON file of jobs) to a queue");
  auto f = std::make_shared<EnqueueFlags>();
  cmd->add_option("QUEUE", f->queue, "Queue name")->required();
  cmd->add_option("JSON", f->json, "The payload, as JSON; - reads it from stdin");
  cmd->add_option("--file,-f", f->file, "NDJSON file, one payload per line (- for stdin)");
  cmd->add_option("--priority,-p", f->priority, "-100..100, higher runs first (default 0)");
  cmd->add_option("--max-retries", f->max_retries, "0..100 (default: the queue's)");
  cmd->add_option("--timeout", f->timeout, "Longest one attempt may run (default: the queue's)")
      ->check(CheckDuration);
  cmd->add_option("--delay", f->delay, "Run after this long (500ms, 30s, 1h30m, 2d)")
      ->check(CheckDuration);
  cmd->add_option("--at", f->at, "Run at this RFC 3339 time")->check(CheckTime);
  cmd->add_option("--expires-in", f->expires_in, "Dead-letter it if not started within this long")
      ->check(CheckDuration);
  cmd->add_option("--idempotency-key", f->idempotency_key,
                  "Enqueue at most once per key (with --file: KEY:LINE per line)");
  cmd->add_option("--tag", f->tags, "key=value; repeatable")->check(CheckTag);
  cmd->add_option("--completion-webhook", f->completion_webhook,
                  "URL POSTed when the job ends (completed, dead-lettered or cancelled)");
  cmd->footer(
      "Examples:\n"
      "  redrive enqueue emails '{\"to\":\"ada@example.com\"}' --priority 5 --tag tenant=acme\n"
      "  echo '{\"n\":1}' | redrive enqueue emails -\n"
      "  redrive enqueue reports '{}' --delay 5m --expires-in 1h\n"
      "  redrive enqueue thumbs --file jobs.ndjson --idempotency-key import-2026-11-29\n"
      "With --file, lines that are not JSON or that the server refuses are listed by line\n"
      "number, and the exit code is 1 if any line failed.");
  ctx.OnRun(cmd, [&ctx, f] { return RunEnqueue(ctx, *f); });
}

}  // namespace redrive::cli
