// Pieces every workload shares: queue naming, consumer setup, bulk enqueue in
// chunks, and polling GET /jobs/stats until a condition holds.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_config.h"
#include "consumer_group.h"
#include "redrive_api.h"

namespace redrive::bench {

// prefix-stamp-mode-phase: fresh per run, within the contract's queue-name rules.
std::string QueueName(const BenchConfig& cfg, const ClaimMode& mode, std::string_view phase);

ConsumerConfig MakeConsumerConfig(const BenchConfig& cfg, const ClaimMode& mode,
                                  const std::string& queue);

// Payloads 0..n-1 of `workload`, built before any clock starts.
std::vector<boost::json::object> MakePayloads(const BenchConfig& cfg, std::string_view workload,
                                              int64_t n);

// POST /jobs/bulk in chunks of cfg.bulk_size; gives up once NowNs() passes
// `deadline_ns`, so a server that answers slowly cannot stretch a phase.
Status EnqueueInBulks(RedriveApi& api, const BenchConfig& cfg, const std::string& queue,
                      const std::vector<boost::json::object>& payloads, int max_retries,
                      int64_t deadline_ns);

struct PollOutcome {
  bool met = false;
  QueueCounts counts;  // the last answer
  int64_t at_ns = 0;   // NowNs() when the last answer arrived
  std::string error;   // the last failed poll, if any
};

// Polls every cfg.poll until `met(counts)` or NowNs() passes `deadline_ns`.
// A failed poll is remembered and retried, not fatal.
PollOutcome PollStatsUntil(RedriveApi& api, const BenchConfig& cfg, const std::string& queue,
                           const std::function<bool(const QueueCounts&)>& met, int64_t deadline_ns);

// Sleeps in 1 ms steps until `done()` or NowNs() passes `deadline_ns`.
bool WaitUntil(const std::function<bool()>& done, int64_t deadline_ns);

inline int64_t ToNs(std::chrono::nanoseconds d) { return d.count(); }

}  // namespace redrive::bench
