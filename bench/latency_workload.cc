#include "latency_workload.h"

#include <atomic>
#include <cmath>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "bench_clock.h"
#include "payload.h"
#include "workload_common.h"

namespace redrive::bench {
namespace {

constexpr int kMaxRetries = 0;
constexpr int64_t kUnset = -1;
// Consumers must be parked in their long-poll before the first job is sent.
constexpr int64_t kWarmupMs = 1000;

// Shared by the producers, the consumers' handler and the phase's thread.
struct Board {
  explicit Board(int64_t n)
      : latency_ns(new std::atomic<int64_t>[static_cast<size_t>(n)]), size(n) {
    for (int64_t i = 0; i < n; ++i) latency_ns[i].store(kUnset, std::memory_order_relaxed);
  }
  std::unique_ptr<std::atomic<int64_t>[]> latency_ns;  // per job; kUnset until delivered
  const int64_t size;
  std::atomic<int64_t> next_slot{0};
  std::atomic<int64_t> sent{0}, send_errors{0}, received{0}, duplicated{0}, foreign{0};
  std::atomic<int64_t> max_lag_ns{0}, last_send_ns{0};
  std::atomic<bool> stop_early{false};  // LatencyRun::until held: take no more slots
  std::mutex error_mu;
  std::string first_error;
};

Outcome Handle(Board& b, const BenchJob& job) {
  const int64_t now = NowNs();
  if (job.index < 0 || job.index >= b.size) {
    b.foreign.fetch_add(1);
    return Outcome::kComplete;
  }
  int64_t expected = kUnset;
  if (b.latency_ns[job.index].compare_exchange_strong(expected, now - job.sent_ns)) {
    b.received.fetch_add(1);
  } else {
    b.duplicated.fetch_add(1);
  }
  return Outcome::kComplete;
}

void AtomicMax(std::atomic<int64_t>& a, int64_t v) {
  int64_t cur = a.load();
  while (v > cur && !a.compare_exchange_weak(cur, v)) {
  }
}

// One producer connection. Slots are shared: slot k is due at start + k/R, and
// whichever producer is free takes the next one, so one slow answer delays
// only its own connection, not the schedule.
// Slots still unsent at `stop_ns` (the server answers too slowly) are dropped
// and show as sent < planned.
void Produce(Board& b, const BenchConfig& cfg, const std::string& queue, int64_t start_ns,
             int64_t stop_ns) {
  Client client(ClientOptionsFor(cfg));
  const double ns_per_job = 1e9 / cfg.latency_rate;
  for (int64_t k;
       !b.stop_early.load() && (k = b.next_slot.fetch_add(1)) < b.size && NowNs() < stop_ns;) {
    const int64_t due =
        start_ns + static_cast<int64_t>(std::llround(static_cast<double>(k) * ns_per_job));
    const int64_t wait = due - NowNs();
    if (wait > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
    const int64_t sent_ns = NowNs();
    AtomicMax(b.max_lag_ns, sent_ns - due);
    Status st = client
                    .Enqueue({.queue_name = queue,
                              .payload = MakePayload("W2", k, sent_ns, cfg.payload_bytes),
                              .max_retries = kMaxRetries})
                    .status();
    if (st.ok()) {
      b.sent.fetch_add(1);
    } else {
      b.send_errors.fetch_add(1);
      std::lock_guard lock(b.error_mu);
      if (b.first_error.empty()) b.first_error = st.message();
    }
    AtomicMax(b.last_send_ns, sent_ns);
  }
}

// Counts, percentiles and the verdict, once producers and consumers are done.
void Collect(const Board& b, int64_t start, LatencyResult& r) {
  const double produce_ms = NsToMs(b.last_send_ns.load() - start);
  r.sent = b.sent.load();
  r.send_errors = b.send_errors.load();
  r.received = b.received.load();
  r.missing = r.sent - r.received;
  r.duplicated = b.duplicated.load();
  r.achieved_rate = produce_ms > 0 ? static_cast<double>(r.sent) / (produce_ms / 1000.0) : 0;
  r.max_send_lag_ms = NsToMs(b.max_lag_ns.load());
  std::vector<int64_t> samples;
  samples.reserve(static_cast<size_t>(r.received));
  for (int64_t i = 0; i < b.size; ++i) {
    if (int64_t v = b.latency_ns[i].load(); v != kUnset) samples.push_back(v);
  }
  r.latency = Summarize(samples);
  if (!b.first_error.empty()) {
    r.error = "enqueue: " + b.first_error;
  } else if (r.sent + r.send_errors < r.planned) {
    r.error = "timed out sending: the server answered too slowly to keep the rate";
  } else if (r.timed_out) {
    r.error = "timed out waiting for every sent job to be claimed";
  } else if (b.foreign.load() > 0) {
    r.error = "received jobs that were not sent by this phase";
  } else if (r.duplicated > 0) {
    r.error = std::to_string(r.duplicated) + " jobs delivered more than once";
  }
  r.ok = !r.timed_out && r.sent == r.planned && r.duplicated == 0 && r.missing == 0 &&
         b.foreign.load() == 0;
}

}  // namespace

LatencyResult RunLatency(const BenchConfig& cfg, const ClaimMode& mode, const LatencyRun& run) {
  LatencyResult r;
  r.queue = QueueName(cfg, mode, run.phase);
  r.planned = std::llround(cfg.latency_rate * cfg.latency_seconds);
  Client control(ClientOptionsFor(cfg));
  if (Status st = ConfigureQueue(control, r.queue, kMaxRetries); !st.ok()) {
    r.error = st.message();
    return r;
  }
  Board b(r.planned);
  ConsumerGroup consumers(ClientOptionsFor(cfg), MakeConsumerConfig(cfg, mode, r.queue),
                          [&b](const BenchJob& job) { return Handle(b, job); });
  consumers.Start();
  SleepMs(kWarmupMs);

  if (run.on_start) run.on_start();
  const int64_t start = NowNs();
  const int64_t stop =
      start + static_cast<int64_t>(cfg.latency_seconds * 1e9) + ToNs(cfg.latency_drain_timeout);
  std::vector<std::thread> producers;
  for (int i = 0; i < cfg.latency_producers; ++i) {
    producers.emplace_back([&b, &cfg, &r, start, stop] { Produce(b, cfg, r.queue, start, stop); });
  }
  if (run.until) {
    WaitUntil(run.until, stop);
    b.stop_early.store(true);
  }
  for (std::thread& t : producers) t.join();
  // Stopped early on purpose: what was sent is the plan.
  if (run.until) r.planned = b.sent.load() + b.send_errors.load();

  const int64_t drain_deadline = NowNs() + ToNs(cfg.latency_drain_timeout);
  const bool drained =
      WaitUntil([&b] { return b.received.load() >= b.sent.load(); }, drain_deadline);
  SleepMs(cfg.settle.count());
  consumers.Stop();

  r.timed_out = !drained;
  Collect(b, start, r);
  r.consumers = consumers.stats();
  return r;
}

}  // namespace redrive::bench
