#include "workload_common.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "bench_clock.h"
#include "payload.h"

namespace redrive::bench {

sdk::ClientOptions ClientOptionsFor(const BenchConfig& cfg,
                                    std::chrono::milliseconds request_timeout) {
  sdk::ClientOptions o;
  o.server_url = cfg.server_url;
  o.api_key = cfg.api_key;
  o.request_timeout = request_timeout;
  o.max_idle_connections = 1;  // every bench Client has one caller
  return o;
}

PhaseClients::PhaseClients(const BenchConfig& cfg)
    : control(ClientOptionsFor(cfg)), stats(ClientOptionsFor(cfg, kStatsTimeout)) {}

std::string QueueName(const BenchConfig& cfg, const ClaimMode& mode, std::string_view phase) {
  return cfg.queue_prefix + "-" + cfg.run_stamp + "-" + mode.name + "-" + std::string(phase);
}

ConsumerConfig MakeConsumerConfig(const BenchConfig& cfg, const ClaimMode& mode,
                                  const std::string& queue) {
  ConsumerConfig c;
  c.queue = queue;
  c.consumers = cfg.consumers;
  c.claim_limit = mode.claim_limit;
  c.batch_acks = mode.batch_acks;
  c.wait = cfg.claim_wait;
  c.worker_prefix = "redrive-bench-" + std::to_string(::getpid()) + "-" + mode.name;
  return c;
}

Status ConfigureQueue(Client& client, const std::string& queue, int max_retries) {
  using std::chrono::milliseconds;
  sdk::QueueConfigUpdate update;
  update.max_retries = max_retries;
  update.backoff = BackoffPolicy{milliseconds(0), milliseconds(0), milliseconds(0)};
  return client.ConfigureQueue(queue, update).status();
}

Status DropQueueIfAsked(const BenchConfig& cfg, const std::string& queue) {
  if (!cfg.delete_queues) return Status::Ok();
  Client client(ClientOptionsFor(cfg));
  return client.DeleteQueue(queue, /*delete_jobs=*/true);
}

std::vector<sdk::BulkEnqueueRequest> MakeBulks(const BenchConfig& cfg, const std::string& queue,
                                               std::string_view workload, int64_t n,
                                               int max_retries) {
  std::vector<sdk::BulkEnqueueRequest> out;
  for (int64_t at = 0; at < n; at += cfg.bulk_size) {
    sdk::BulkEnqueueRequest& bulk = out.emplace_back();
    bulk.queue_name = queue;
    bulk.default_max_retries = max_retries;
    const int64_t end = std::min(n, at + cfg.bulk_size);
    bulk.jobs.reserve(static_cast<size_t>(end - at));
    for (int64_t i = at; i < end; ++i) {
      bulk.jobs.push_back({.payload = MakePayload(workload, i, 0, cfg.payload_bytes)});
    }
  }
  return out;
}

Status EnqueueInBulks(Client& client, const std::vector<sdk::BulkEnqueueRequest>& bulks,
                      int64_t deadline_ns) {
  size_t sent = 0;
  for (const sdk::BulkEnqueueRequest& bulk : bulks) {
    if (NowNs() > deadline_ns) {
      return Status::Unavailable("enqueue timed out after " + std::to_string(sent) + " jobs");
    }
    Result<sdk::BulkEnqueueResult> r = client.EnqueueBulk(bulk);
    if (!r.ok()) return r.status();
    if (r->succeeded.size() != bulk.jobs.size()) {
      std::string failed = r->failed.empty() ? "?" : r->failed.front().error.ToString();
      return Status::Unavailable("POST /jobs/bulk: " + std::to_string(r->succeeded.size()) +
                                 " of " + std::to_string(bulk.jobs.size()) +
                                 " accepted; first failed: " + failed.substr(0, 300));
    }
    sent += bulk.jobs.size();
  }
  return Status::Ok();
}

std::vector<boost::json::value> MakePayloads(const BenchConfig& cfg, std::string_view workload,
                                             int64_t n) {
  std::vector<boost::json::value> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.emplace_back(MakePayload(workload, i, 0, cfg.payload_bytes));
  return out;
}

Status EnqueueOneByOne(const BenchConfig& cfg, const std::string& queue,
                       const std::vector<boost::json::value>& payloads, int max_retries,
                       int64_t deadline_ns) {
  const auto n = static_cast<int64_t>(payloads.size());
  std::atomic<int64_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex error_mu;
  Status first_error;
  auto produce = [&] {
    Client client(ClientOptionsFor(cfg));
    for (int64_t i; !failed.load() && (i = next.fetch_add(1)) < n;) {
      Status st = NowNs() > deadline_ns ? Status::Unavailable("enqueue timed out")
                                        : client
                                              .Enqueue({.queue_name = queue,
                                                        .payload = payloads[static_cast<size_t>(i)],
                                                        .max_retries = max_retries})
                                              .status();
      if (st.ok()) continue;
      failed.store(true);
      std::lock_guard lock(error_mu);
      if (first_error.ok()) first_error = st;
    }
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < cfg.enqueue_producers; ++k) threads.emplace_back(produce);
  for (std::thread& t : threads) t.join();
  return first_error;
}

PollOutcome PollStatsUntil(Client& stats, const BenchConfig& cfg, const std::string& queue,
                           const std::function<bool(const StatusCounts&)>& met,
                           int64_t deadline_ns) {
  PollOutcome out;
  for (;;) {
    Result<StatusCounts> counts = stats.Stats(queue);
    out.at_ns = NowNs();
    if (counts.ok()) {
      out.counts = *counts;
      if (met(out.counts)) {
        out.met = true;
        return out;
      }
    } else {
      out.error = counts.status().message();
    }
    if (out.at_ns > deadline_ns) return out;
    SleepMs(cfg.poll.count());
  }
}

bool WaitUntil(const std::function<bool()>& done, int64_t deadline_ns) {
  while (!done()) {
    if (NowNs() > deadline_ns) return false;
    SleepMs(1);
  }
  return true;
}

}  // namespace redrive::bench
