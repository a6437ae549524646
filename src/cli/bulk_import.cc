#include "cli/bulk_import.h"

#include <algorithm>
#include <boost/json/parse.hpp>

namespace redrive::cli {
namespace {

// The valid lines of one batch, in order, with their line numbers.
struct Batch {
  std::vector<sdk::BulkJob> jobs;
  std::vector<long> lines;
};

bool IsBlank(const std::string& line) {
  return line.find_first_not_of(" \t\r") == std::string::npos;
}

// Reads lines into `batch` until it is full or the input ends; invalid JSON
// lines go straight to the summary's failures.
void FillBatch(std::istream& in, const ImportOptions& options, Batch& batch, ImportSummary& summary,
               size_t& bytes_read) {
  std::string line;
  while (batch.jobs.size() < options.batch_size && std::getline(in, line)) {
    bytes_read += line.size() + 1;
    long number = ++summary.lines;
    if (IsBlank(line)) continue;
    boost::system::error_code ec;
    boost::json::value payload = boost::json::parse(line, ec);
    if (ec) {
      summary.failures.push_back({number, "INVALID_JSON", "invalid JSON: " + ec.message()});
      continue;
    }
    sdk::BulkJob job = options.job_template;
    job.payload = std::move(payload);
    if (options.idempotency_key)
      job.idempotency_key = *options.idempotency_key + ":" + std::to_string(number);
    batch.jobs.push_back(std::move(job));
    batch.lines.push_back(number);
  }
}

Status SendBatch(sdk::Client& client, const ImportOptions& options, Batch& batch,
                 ImportSummary& summary) {
  sdk::BulkEnqueueRequest request;
  request.queue_name = options.queue;
  request.jobs = std::move(batch.jobs);
  request.default_priority = options.default_priority;
  request.default_max_retries = options.default_max_retries;
  request.default_timeout_seconds = options.default_timeout_seconds;
  auto result = client.EnqueueBulk(request);
  if (!result.ok()) return result.status();
  for (const auto& ok : result->succeeded) ++(ok.created ? summary.enqueued : summary.existing);
  for (const auto& failed : result->failed) {
    long line = failed.index >= 0 && static_cast<size_t>(failed.index) < batch.lines.size()
                    ? batch.lines[static_cast<size_t>(failed.index)]
                    : -1;
    std::string message = failed.error.message();
    if (!failed.error.field().empty()) message += " (field " + failed.error.field() + ")";
    summary.failures.push_back({line, ErrorCodeName(failed.error.code()), message});
  }
  return Status::Ok();
}

}  // namespace

ImportSummary ImportNdjson(sdk::Client& client, std::istream& in, const ImportOptions& options) {
  ImportSummary summary;
  size_t bytes_read = 0;
  while (in) {
    Batch batch;
    FillBatch(in, options, batch, summary, bytes_read);
    if (!batch.jobs.empty()) {
      Status sent = SendBatch(client, options, batch, summary);
      if (!sent.ok()) {
        summary.aborted = sent;
        break;
      }
    }
    if (options.on_progress) options.on_progress(summary, bytes_read);
  }
  // The server reports failures per batch; the reader, lines as it goes.
  std::stable_sort(summary.failures.begin(), summary.failures.end(),
                   [](const LineFailure& a, const LineFailure& b) { return a.line < b.line; });
  return summary;
}

}  // namespace redrive::cli
