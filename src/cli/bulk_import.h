// `redrive enqueue QUEUE --file jobs.ndjson`: streams a file of NDJSON lines
// (one payload per line) to the server with bulk enqueue, in batches of up to
// 1000, and remembers which LINES failed: lines that are not JSON, and items
// the server refused. Blank lines are skipped but still counted, so line
// numbers match the editor's.
#pragma once

#include <functional>
#include <istream>
#include <string>
#include <vector>

#include "redrive/client.h"

namespace redrive::cli {

struct LineFailure {
  long line = 0;
  std::string code;  // "INVALID_JSON" or the server's error code
  std::string message;
};

struct ImportSummary {
  long lines = 0;     // lines read, blank ones included
  long enqueued = 0;  // new jobs
  long existing = 0;  // idempotency key already used: no new job
  std::vector<LineFailure> failures;
  Status aborted;  // a whole batch failed (server down): later lines not sent
};

struct ImportOptions {
  std::string queue;
  size_t batch_size = 1000;
  // Applied to every line; `idempotency_key`, when set, is suffixed with
  // ":LINE" so that importing the same file twice adds nothing.
  sdk::BulkJob job_template;
  std::optional<std::string> idempotency_key;
  std::optional<int> default_priority, default_max_retries, default_timeout_seconds;
  // Called after each batch with the lines read so far and the bytes read.
  std::function<void(const ImportSummary&, size_t bytes_read)> on_progress;
};

ImportSummary ImportNdjson(sdk::Client& client, std::istream& in, const ImportOptions& options);

}  // namespace redrive::cli
