#include "workload_common.h"

#include <unistd.h>

#include <algorithm>
#include <span>

#include "bench_clock.h"
#include "payload.h"

namespace redrive::bench {

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

std::vector<boost::json::object> MakePayloads(const BenchConfig& cfg, std::string_view workload,
                                              int64_t n) {
  std::vector<boost::json::object> out;
  out.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out.push_back(MakePayload(workload, i, 0, cfg.payload_bytes));
  return out;
}

Status EnqueueInBulks(RedriveApi& api, const BenchConfig& cfg, const std::string& queue,
                      const std::vector<boost::json::object>& payloads, int max_retries,
                      int64_t deadline_ns) {
  std::span<const boost::json::object> all(payloads);
  for (size_t at = 0; at < all.size(); at += static_cast<size_t>(cfg.bulk_size)) {
    if (NowNs() > deadline_ns) {
      return Status::Unavailable("enqueue timed out after " + std::to_string(at) + " jobs");
    }
    size_t n = std::min(all.size() - at, static_cast<size_t>(cfg.bulk_size));
    REDRIVE_RETURN_IF_ERROR(api.EnqueueBulk(queue, all.subspan(at, n), max_retries));
  }
  return Status::Ok();
}

PollOutcome PollStatsUntil(RedriveApi& api, const BenchConfig& cfg, const std::string& queue,
                           const std::function<bool(const QueueCounts&)>& met,
                           int64_t deadline_ns) {
  PollOutcome out;
  for (;;) {
    Result<QueueCounts> counts = api.Stats(queue);
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
