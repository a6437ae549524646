// C consumer threads, each with its own redrive::Client (so its own keep-alive
// connection), running the worker loop of one claim mode:
//   single: claim `limit` jobs, then POST /jobs/{id}/complete or /fail per job;
//   batch:  claim `limit` jobs carrying the previous batch's outcomes in
//           `acks` (one round trip per batch); unsent acks are flushed with
//           POST /jobs/ack when the group stops.
// Claims long-poll (`wait_ms`); Stop() cancels a waiting claim at once instead
// of waiting it out, so a phase ends as soon as its work is done.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "payload.h"
#include "redrive/client.h"

namespace redrive::bench {

enum class Outcome { kComplete, kFail };

// Runs on consumer threads, concurrently: must be thread-safe.
using JobHandler = std::function<Outcome(const BenchJob&)>;

struct ConsumerConfig {
  std::string queue;
  int consumers = 16;
  int claim_limit = 1;
  bool batch_acks = false;
  std::chrono::milliseconds wait{5000};
  std::string worker_prefix;  // worker ids are prefix + "-" + thread number
};

// Counters over all threads, for the report.
struct ConsumerStats {
  int64_t claims = 0;          // claim requests answered
  int64_t empty_claims = 0;    // of which returned no job
  int64_t jobs = 0;            // jobs delivered
  int64_t request_errors = 0;  // failed requests (transport or non-2xx), cancels excluded
  int64_t ack_refusals = 0;    // per-item refusals in batch ack results
  int64_t connects = 0;        // TCP connections opened (C when keep-alive holds)
  std::string first_error;
};

class ConsumerGroup {
 public:
  // `client_options` is copied for each thread's Client.
  ConsumerGroup(sdk::ClientOptions client_options, ConsumerConfig config, JobHandler handler);
  ~ConsumerGroup();  // Stop()s
  ConsumerGroup(const ConsumerGroup&) = delete;
  ConsumerGroup& operator=(const ConsumerGroup&) = delete;

  void Start();
  // Cancels waiting claims, lets each thread finish the batch in hand and flush
  // its acks, and joins. Idempotent.
  void Stop();
  ConsumerStats stats() const;

 private:
  void Run(int thread_index);
  // Sends this thread's completions or failures for one batch (single mode).
  void AckEach(Client& client, const std::vector<sdk::ClaimedJob>& jobs,
               const std::vector<Outcome>& outcomes, const std::string& worker_id);
  void NoteError(const Status& st);  // a failed request
  void NoteRefusals(const std::vector<sdk::AckResult>& results);
  void KeepFirstError(const std::string& message);

  const sdk::ClientOptions client_options_;
  const ConsumerConfig config_;
  const JobHandler handler_;
  std::stop_source stop_;
  std::vector<std::thread> threads_;

  std::atomic<int64_t> claims_{0}, empty_claims_{0}, jobs_{0}, request_errors_{0}, ack_refusals_{0},
      connects_{0};
  mutable std::mutex error_mu_;
  std::string first_error_;  // guarded by error_mu_
};

}  // namespace redrive::bench
