#include "throughput_workload.h"

#include <atomic>

#include "bench_clock.h"
#include "workload_common.h"

namespace redrive::bench {
namespace {

constexpr int kMaxRetries = 1;  // one retry: the planned failure, then success

// What the consumers' handler shares with the phase's thread.
struct Progress {
  explicit Progress(int64_t jobs) : ledger(jobs) {}
  JobLedger ledger;
  std::atomic<int64_t> first_claim_ns{-1};
  std::atomic<int64_t> first_pass{0}, first_pass_done_ns{-1};
  std::atomic<int64_t> distinct_done{0};
  std::atomic<int64_t> planned_failures{0};
};

Outcome Handle(Progress& p, int fail_pct, const BenchJob& job) {
  const int64_t now = NowNs();
  int64_t unset = -1;
  p.first_claim_ns.compare_exchange_strong(unset, now);
  const int attempt = p.ledger.RecordAttempt(job.index);
  if (attempt == 0) return Outcome::kComplete;  // not ours; counted as foreign
  if (attempt == 1 && p.first_pass.fetch_add(1) + 1 == p.ledger.size()) {
    p.first_pass_done_ns.store(now);
  }
  if (attempt == 1 && job.index % 100 < fail_pct) {
    p.planned_failures.fetch_add(1);
    return Outcome::kFail;
  }
  if (p.ledger.RecordSuccess(job.index) == 1) p.distinct_done.fetch_add(1);
  return Outcome::kComplete;
}

double Rate(int64_t n, double ms) { return ms > 0 ? static_cast<double>(n) / (ms / 1000.0) : 0; }

// Rates and the exactly-once tally from what the consumers saw; `srv` is the
// poll that found (or gave up finding) the queue finished.
void RecordTimings(const Progress& p, int64_t t0, const PollOutcome& srv, ThroughputResult& r) {
  const int64_t first_claim = p.first_claim_ns.load();
  if (first_claim >= 0 && !r.timed_out) {
    r.process_ms = NsToMs(srv.at_ns - first_claim);
    r.process_rate = Rate(r.jobs, r.process_ms);
  }
  if (p.first_pass_done_ns.load() >= 0) {
    r.first_pass_ms = NsToMs(p.first_pass_done_ns.load() - first_claim);
    r.first_pass_rate = Rate(r.jobs, r.first_pass_ms);
  }
  r.wall_ms = NsToMs(srv.at_ns - t0);
  r.tally = p.ledger.Tally();
  r.planned_failures = p.planned_failures.load();
  r.expected_invocations = r.jobs + r.planned_failures;
}

// The verdict: no timeout, no job lost, duplicated or foreign, and the
// server's own completed count agreeing. Keeps an earlier error if set.
void Judge(Client& stats, ThroughputResult& r) {
  if (Result<StatusCounts> c = stats.Stats(r.queue); c.ok()) {
    r.server_completed = c->completed;
    r.server_deadletter = c->deadletter;
    r.server_unfinished = Unfinished(*c);
  } else if (r.error.empty()) {
    r.error = c.status().message();
  }
  const bool server_agrees = r.server_completed == r.jobs;
  if (!server_agrees && r.error.empty()) {
    r.error = "server reports " + std::to_string(r.server_completed) + " of " +
              std::to_string(r.jobs) + " jobs completed";
  }
  const bool exactly_once = r.tally.lost == 0 && r.tally.duplicated == 0 && r.tally.foreign == 0;
  if (!exactly_once && r.error.empty()) {
    r.error = "not exactly once: " + std::to_string(r.tally.lost) + " lost, " +
              std::to_string(r.tally.duplicated) + " duplicated, " +
              std::to_string(r.tally.foreign) + " foreign";
  }
  r.ok = !r.timed_out && server_agrees && exactly_once;
}

}  // namespace

ThroughputResult RunThroughput(const BenchConfig& cfg, const ClaimMode& mode) {
  ThroughputResult r;
  r.jobs = cfg.jobs;
  r.queue = QueueName(cfg, mode, "w1");
  PhaseClients clients(cfg);
  if (Status st = ConfigureQueue(clients.control, r.queue, kMaxRetries); !st.ok()) {
    r.error = st.message();
    return r;
  }
  // In bulks, or one by one (--enqueue-producers).
  const bool one_by_one = cfg.enqueue_producers > 0;
  const std::vector<sdk::BulkEnqueueRequest> bulks =
      one_by_one ? std::vector<sdk::BulkEnqueueRequest>{}
                 : MakeBulks(cfg, r.queue, "W1", cfg.jobs, kMaxRetries);
  const std::vector<boost::json::value> payloads =
      one_by_one ? MakePayloads(cfg, "W1", cfg.jobs) : std::vector<boost::json::value>{};

  const int64_t t0 = NowNs();
  const int64_t deadline = t0 + ToNs(cfg.throughput_timeout);
  const Status enqueued = one_by_one
                              ? EnqueueOneByOne(cfg, r.queue, payloads, kMaxRetries, deadline)
                              : EnqueueInBulks(clients.control, bulks, deadline);
  if (!enqueued.ok()) {
    r.error = enqueued.message();
    return r;
  }
  r.enqueue_ms = NsToMs(NowNs() - t0);
  r.enqueue_rate = Rate(cfg.jobs, r.enqueue_ms);

  Progress p(cfg.jobs);
  ConsumerGroup consumers(ClientOptionsFor(cfg), MakeConsumerConfig(cfg, mode, r.queue),
                          [&p, &cfg](const BenchJob& job) { return Handle(p, cfg.fail_pct, job); });
  consumers.Start();
  const bool handled =
      WaitUntil([&p] { return p.distinct_done.load() == p.ledger.size(); }, deadline);
  // Done = every job ran once successfully here AND the server holds none in a
  // non-terminal state (in batch mode the last acks may still be in flight).
  PollOutcome srv = PollStatsUntil(
      clients.stats, cfg, r.queue, [](const StatusCounts& c) { return Unfinished(c) == 0; },
      std::max(deadline, NowNs() + ToNs(std::chrono::seconds(2))));
  SleepMs(cfg.settle.count());  // late redeliveries would show up as duplicates
  consumers.Stop();

  r.timed_out = !handled || !srv.met;
  RecordTimings(p, t0, srv, r);
  r.consumers = consumers.stats();
  if (r.timed_out) {
    r.error = !handled ? "timed out waiting for every job to succeed once"
                       : "timed out waiting for the server to show no unfinished job";
    if (!srv.error.empty()) r.error += " (last stats error: " + srv.error + ")";
  }
  Judge(clients.stats, r);
  return r;
}

}  // namespace redrive::bench
