#include "deadletter_workload.h"

#include "bench_clock.h"
#include "job_ledger.h"
#include "workload_common.h"

namespace redrive::bench {
namespace {

constexpr int kMaxRetries = 2;
constexpr int kMaxAttempts = kMaxRetries + 1;
// Consumers must be parked in their long-poll before the jobs arrive.
constexpr int64_t kWarmupMs = 500;

}  // namespace

DeadLetterResult RunDeadLetter(const BenchConfig& cfg, const ClaimMode& mode) {
  DeadLetterResult r;
  r.jobs = cfg.dlq_jobs;
  r.max_attempts = kMaxAttempts;
  r.queue = QueueName(cfg, mode, "w3");
  PhaseClients clients(cfg);
  if (Status st = ConfigureQueue(clients.control, r.queue, kMaxRetries); !st.ok()) {
    r.error = st.message();
    return r;
  }
  JobLedger ledger(cfg.dlq_jobs);
  ConsumerGroup consumers(ClientOptionsFor(cfg), MakeConsumerConfig(cfg, mode, r.queue),
                          [&ledger](const BenchJob& job) {
                            ledger.RecordAttempt(job.index);
                            return Outcome::kFail;
                          });
  consumers.Start();
  SleepMs(kWarmupMs);
  const std::vector<sdk::BulkEnqueueRequest> bulks =
      MakeBulks(cfg, r.queue, "W3", cfg.dlq_jobs, kMaxRetries);

  const int64_t t0 = NowNs();
  const int64_t deadline = t0 + ToNs(cfg.dlq_timeout);
  Status st = EnqueueInBulks(clients.control, bulks, deadline);
  r.enqueue_ms = NsToMs(NowNs() - t0);
  PollOutcome dead;
  if (st.ok()) {
    dead = PollStatsUntil(
        clients.stats, cfg, r.queue, [&r](const StatusCounts& c) { return c.deadletter >= r.jobs; },
        deadline);
  }
  SleepMs(cfg.settle.count());
  consumers.Stop();

  r.timed_out = st.ok() && !dead.met;
  r.all_dead_ms = dead.met ? NsToMs(dead.at_ns - t0) : 0;
  r.dead = dead.counts.deadletter;
  const LedgerTally tally = ledger.Tally();
  r.invocations = tally.invocations;
  r.expected_invocations = r.jobs * kMaxAttempts;
  for (int64_t i = 0; i < r.jobs; ++i) {
    if (ledger.attempts(i) != kMaxAttempts) ++r.wrong_attempts;
  }
  if (Result<StatusCounts> c = clients.stats.Stats(r.queue); c.ok()) {
    r.dead = c->deadletter;
    r.server_unfinished = Unfinished(*c);
  }
  r.consumers = consumers.stats();
  if (!st.ok()) {
    r.error = st.message();
  } else if (r.timed_out) {
    r.error = "timed out waiting for every job to be dead-lettered" +
              (dead.error.empty() ? "" : " (" + dead.error + ")");
  } else if (r.wrong_attempts > 0) {
    r.error = std::to_string(r.wrong_attempts) + " jobs did not run exactly " +
              std::to_string(kMaxAttempts) + " times";
  }
  r.ok = st.ok() && !r.timed_out && r.dead == r.jobs && r.wrong_attempts == 0 && tally.foreign == 0;
  return r;
}

}  // namespace redrive::bench
