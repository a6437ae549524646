// Pieces every workload shares: the phase's clients, queue naming, consumer
// setup, bulk enqueue in chunks, and polling GET /jobs/stats until a
// condition holds. All calls go through the SDK's redrive::Client.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_config.h"
#include "consumer_group.h"
#include "redrive/client.h"

namespace redrive::bench {

// Client options for cfg's server and key; `request_timeout` per request (a
// long-poll claim adds its wait).
sdk::ClientOptions ClientOptionsFor(
    const BenchConfig& cfg, std::chrono::milliseconds request_timeout = std::chrono::seconds(30));

// GET /jobs/stats is polled against a deadline: a stuck poll must not hold a
// phase much past it.
inline constexpr std::chrono::milliseconds kStatsTimeout{5'000};

// The phase's own calls, off the consumers' connections: `control` for the
// queue config and enqueues, `stats` (kStatsTimeout) for GET /jobs/stats.
struct PhaseClients {
  explicit PhaseClients(const BenchConfig& cfg);
  Client control;
  Client stats;
};

// prefix-stamp-mode-phase (cfg.run_stamp), within the contract's queue-name rules.
std::string QueueName(const BenchConfig& cfg, const ClaimMode& mode, std::string_view phase);

ConsumerConfig MakeConsumerConfig(const BenchConfig& cfg, const ClaimMode& mode,
                                  const std::string& queue);

// PUT /queues/{q}/config: `max_retries`, and a zero backoff so that retries
// are due at once (the smallest the contract allows).
Status ConfigureQueue(Client& client, const std::string& queue, int max_retries);

// DELETE /queues/{q}?delete_jobs=true, when cfg.delete_queues; after a
// phase, so that its queue holds nothing when the next run starts it again.
Status DropQueueIfAsked(const BenchConfig& cfg, const std::string& queue);

// The POST /jobs/bulk requests for jobs 0..n-1 of `workload`, in chunks of
// cfg.bulk_size, built before any clock starts.
std::vector<sdk::BulkEnqueueRequest> MakeBulks(const BenchConfig& cfg, const std::string& queue,
                                               std::string_view workload, int64_t n,
                                               int max_retries);

// Sends `bulks` in order; any refused item is an error. Gives up once NowNs()
// passes `deadline_ns`, so a server that answers slowly cannot stretch a phase.
Status EnqueueInBulks(Client& client, const std::vector<sdk::BulkEnqueueRequest>& bulks,
                      int64_t deadline_ns);

// The payloads of jobs 0..n-1 of `workload`, for EnqueueOneByOne, built
// before any clock starts.
std::vector<boost::json::value> MakePayloads(const BenchConfig& cfg, std::string_view workload,
                                             int64_t n);

// Job i with payloads[i], each with its own POST /jobs, from
// cfg.enqueue_producers connections, each taking the next job when it is
// free; any refusal is an error. Gives up once NowNs() passes `deadline_ns`.
Status EnqueueOneByOne(const BenchConfig& cfg, const std::string& queue,
                       const std::vector<boost::json::value>& payloads, int max_retries,
                       int64_t deadline_ns);

// Jobs the server still has to hand out or hear back about.
inline int64_t Unfinished(const StatusCounts& c) { return c.pending + c.scheduled + c.processing; }

struct PollOutcome {
  bool met = false;
  StatusCounts counts;  // the last answer
  int64_t at_ns = 0;    // NowNs() when the last answer arrived
  std::string error;    // the last failed poll, if any
};

// Polls every cfg.poll until `met(counts)` or NowNs() passes `deadline_ns`.
// A failed poll is remembered and retried, not fatal.
PollOutcome PollStatsUntil(Client& stats, const BenchConfig& cfg, const std::string& queue,
                           const std::function<bool(const StatusCounts&)>& met,
                           int64_t deadline_ns);

// Sleeps in 1 ms steps until `done()` or NowNs() passes `deadline_ns`.
bool WaitUntil(const std::function<bool()>& done, int64_t deadline_ns);

inline int64_t ToNs(std::chrono::nanoseconds d) { return d.count(); }

}  // namespace redrive::bench
