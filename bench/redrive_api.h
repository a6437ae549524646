// The handful of Redrive routes the bench drives (shared/spec api.md), as
// typed calls over one HttpClient. Not thread-safe (neither is the client):
// each thread owns a RedriveApi. A non-2xx answer becomes a Status carrying
// the route, the HTTP status and the start of the body, for the report; its
// code follows the HTTP status (401 kUnauthorized, 409 kConflict, 503 and
// "no answer at all" kUnavailable, other 5xx kInternal).
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "http_client.h"

namespace redrive::bench {

// What the bench needs of a claimed job; the payload is the bench's own
// ({"i": index, "t": send stamp}), so a job from anywhere else has index -1.
struct ClaimedJob {
  std::string id;
  std::string lease_id;
  int64_t index = -1;
  int64_t sent_ns = 0;
};

// One outcome for POST /jobs/ack or a claim's `acks`.
struct Ack {
  std::string id;
  std::string lease_id;
  bool failed = false;  // true: sent with an `error`, so the server retries or dead-letters
};

// Per-item answers to a batch of acks.
struct AckTally {
  int64_t ok = 0;
  int64_t refused = 0;  // e.g. LEASE_EXPIRED
  std::string first_refusal;
};

// GET /jobs/stats?queue_name=
struct QueueCounts {
  int64_t pending = 0, scheduled = 0, processing = 0, completed = 0, deadletter = 0, cancelled = 0,
          total = 0;
  // Jobs the server still has to hand out or hear back about.
  int64_t unfinished() const { return pending + scheduled + processing; }
};

struct ClaimRequest {
  std::string_view queue;
  std::string_view worker_id;
  int limit = 1;
  std::chrono::milliseconds wait{0};
  int lease_secs = 30;
  std::span<const Ack> acks;  // applied by the server before it claims
};

class RedriveApi {
 public:
  explicit RedriveApi(HttpClient* http) : http_(http) {}

  // PUT /queues/{q}/config: `max_retries`, and a zero backoff so that retries
  // are due at once (the smallest the contract allows).
  Status ConfigureQueue(std::string_view queue, int max_retries);

  // POST /jobs/bulk (≤ 1000 payloads). Any per-item failure is an error.
  Status EnqueueBulk(std::string_view queue, std::span<const boost::json::object> payloads,
                     int max_retries);

  // POST /jobs with one payload.
  Status Enqueue(std::string_view queue, const boost::json::object& payload, int max_retries);

  // POST /jobs/claim; appends the claimed jobs to *jobs and, when acks were
  // sent, tallies their per-item results into *acked.
  Status Claim(const ClaimRequest& req, std::vector<ClaimedJob>* jobs, AckTally* acked);

  // POST /jobs/{id}/complete and /fail.
  Status Complete(const ClaimedJob& job, std::string_view worker_id);
  Status Fail(const ClaimedJob& job, std::string_view worker_id, std::string_view error);

  // POST /jobs/ack.
  Status AckBatch(std::string_view worker_id, std::span<const Ack> acks, AckTally* acked);

  Result<QueueCounts> Stats(std::string_view queue);

 private:
  // Sends a request and returns the parsed JSON body of a 2xx answer.
  Result<boost::json::value> Call(std::string_view method, const std::string& target,
                                  const boost::json::object* body,
                                  std::chrono::milliseconds timeout);

  HttpClient* http_;
};

}  // namespace redrive::bench
