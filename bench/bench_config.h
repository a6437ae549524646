// Everything a bench run is parameterised by: the command-line options
// (main.cc) plus the fixed choices that mirror the peer harness
// (shared/bench/peers: bulks of 1000, 500 ms settle, 20 ms stats polling).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace redrive::bench {

struct BenchConfig {
  std::string server_url;  // as redrive::ClientOptions::server_url
  std::string api_key;
  // The middle of this run's queue names: a fresh time stamp, so that runs
  // never share a queue, or the fixed --run-id, so that they do (a soak).
  std::string run_stamp;
  std::string queue_prefix = "rb";
  // Delete each phase's queue, with its jobs, once the phase is judged: runs
  // with one --run-id then work on the same few queues and leave no jobs behind.
  bool delete_queues = false;

  int64_t jobs = 20000;  // throughput phase (W1); 0 skips it
  int consumers = 16;
  int batch = 100;    // claim limit in batch mode
  int fail_pct = 10;  // W1: jobs with i % 100 < fail_pct fail their first attempt
  size_t payload_bytes = 100;
  double latency_rate = 500;   // W2 jobs/s
  double latency_seconds = 5;  // W2 duration; 0 skips it
  int latency_producers = 4;   // W2 connections sharing the paced schedule
  int64_t dlq_jobs = 1000;     // W3; 0 skips it
  int64_t workflow_jobs = 0;   // W4, jobs of the fan-out/fan-in workflow; 0 skips it
  int64_t operation_jobs = 0;  // W5, dead jobs one bulk operation retries; 0 skips it
  double operation_rate = 0;   // W5, the operation's rate_per_second; 0: full speed

  int bulk_size = 1000;
  // W1's enqueue: 0 in bulks of bulk_size from one connection (as the peer
  // harness does); N: every job with its own POST /jobs, from N connections.
  int enqueue_producers = 0;
  std::chrono::milliseconds claim_wait{5000};
  std::chrono::seconds throughput_timeout{120};
  std::chrono::seconds latency_drain_timeout{15};
  std::chrono::seconds dlq_timeout{90};
  std::chrono::seconds workflow_timeout{300};
  std::chrono::seconds operation_timeout{600};  // W5: dead-lettering, then the operation
  std::chrono::milliseconds settle{500};        // after the end, to catch late redeliveries
  std::chrono::milliseconds poll{20};           // GET /jobs/stats interval
};

// How consumers talk to the server: the single-job API or batches with acks.
struct ClaimMode {
  std::string name;  // "single" or "batch"
  int claim_limit = 1;
  bool batch_acks = false;
};

}  // namespace redrive::bench
