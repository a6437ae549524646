#include "operation_workload.h"

#include <atomic>
#include <mutex>
#include <thread>

#include "bench_clock.h"
#include "workload_common.h"

namespace redrive::bench {
namespace {

constexpr int kMaxRetries = 0;  // one failed attempt dead-letters a job
// Consumers must be parked in their long-poll before the jobs arrive.
constexpr int64_t kWarmupMs = 500;
constexpr int64_t kOperationPollMs = 50;
// While the operation runs W2 keeps sending for at most this long.
constexpr double kDuringLimitSeconds = 600;

// Dead-letters cfg.operation_jobs jobs in `queue`; the time it took, or an error.
Status DeadLetterAll(const BenchConfig& cfg, const ClaimMode& mode, const std::string& queue,
                     OperationResult& r) {
  PhaseClients clients(cfg);
  if (Status st = ConfigureQueue(clients.control, queue, kMaxRetries); !st.ok()) return st;
  ConsumerGroup consumers(ClientOptionsFor(cfg), MakeConsumerConfig(cfg, mode, queue),
                          [](const BenchJob&) { return Outcome::kFail; });
  consumers.Start();
  SleepMs(kWarmupMs);
  const std::vector<sdk::BulkEnqueueRequest> bulks =
      MakeBulks(cfg, queue, "W5", r.jobs, kMaxRetries);
  const int64_t t0 = NowNs();
  const int64_t deadline = t0 + ToNs(cfg.operation_timeout);
  Status st = EnqueueInBulks(clients.control, bulks, deadline);
  PollOutcome dead;
  if (st.ok()) {
    dead = PollStatsUntil(
        clients.stats, cfg, queue, [&r](const StatusCounts& c) { return c.deadletter >= r.jobs; },
        deadline);
  }
  consumers.Stop();
  if (!st.ok()) return st;
  if (!dead.met) {
    r.timed_out = true;
    return Status::Unavailable("timed out dead-lettering the jobs" +
                               (dead.error.empty() ? "" : " (" + dead.error + ")"));
  }
  r.dead_letter_ms = NsToMs(dead.at_ns - t0);
  return Status::Ok();
}

// The operation, started by Start() and followed by Poll() from the phase's
// thread (W2's `until` only reads `finished`).
class Follower {
 public:
  Follower(const BenchConfig& cfg, std::string queue)
      : client_(ClientOptionsFor(cfg)), queue_(std::move(queue)), rate_(cfg.operation_rate) {}

  void Start() {
    sdk::OperationRequest req;
    req.action = "retry";
    req.selector["queue_name"] = queue_;
    req.reason = "redrive-bench W5";
    if (rate_ > 0) req.rate_per_second = rate_;
    started_ns_ = NowNs();
    Result<Operation> op = client_.CreateOperation(req);
    std::lock_guard lock(mu_);
    if (!op.ok()) {
      error_ = "POST /operations: " + op.status().message();
      finished_.store(true);
      return;
    }
    op_ = *op;
  }

  // Polls until the operation is finished or `deadline_ns`; false on time-out.
  bool FollowUntil(int64_t deadline_ns) {
    while (!finished_.load()) {
      if (NowNs() > deadline_ns) return false;
      SleepMs(kOperationPollMs);
      std::string id;
      {
        std::lock_guard lock(mu_);
        id = op_.id;
      }
      Result<Operation> op = client_.GetOperation(id);
      if (!op.ok()) continue;  // a slow answer under load is not fatal; the deadline is
      std::lock_guard lock(mu_);
      op_ = *op;
      if (IsFinished(op_.state)) {
        seen_ns_ = NowNs();
        finished_.store(true);
      }
    }
    return true;
  }

  bool finished() const { return finished_.load(); }

  void Report(OperationResult& r) {
    std::lock_guard lock(mu_);
    if (!error_.empty()) r.error = error_;
    r.operation_id = op_.id;
    r.state = OperationStateName(op_.state);
    r.matched = op_.matched;
    r.done = op_.done;
    r.failed = op_.failed;
    if (op_.started_at && op_.finished_at) {
      r.run_ms = static_cast<double>(ToMicros(*op_.finished_at) - ToMicros(*op_.started_at)) / 1e3;
      if (r.run_ms > 0) r.jobs_per_s = static_cast<double>(r.done) / (r.run_ms / 1e3);
    }
    if (seen_ns_ > 0) r.seen_ms = NsToMs(seen_ns_ - started_ns_);
  }

 private:
  Client client_;
  const std::string queue_;
  const double rate_;
  std::atomic<bool> finished_{false};
  std::mutex mu_;
  Operation op_;
  std::string error_;
  int64_t started_ns_ = 0, seen_ns_ = 0;
};

}  // namespace

OperationResult RunOperation(const BenchConfig& cfg, const ClaimMode& mode) {
  OperationResult r;
  r.jobs = cfg.operation_jobs;
  r.queue = QueueName(cfg, mode, "w5");
  if (Status st = DeadLetterAll(cfg, mode, r.queue, r); !st.ok()) {
    r.error = st.message();
    return r;
  }
  const bool with_latency = cfg.latency_seconds > 0;
  if (with_latency) r.latency_alone = RunLatency(cfg, mode, {.phase = "w5-lat-alone"});

  Follower follower(cfg, r.queue);
  const int64_t deadline = NowNs() + ToNs(cfg.operation_timeout);
  bool followed = true;
  if (with_latency) {
    // W2 starts the operation once its consumers are parked and sends until
    // it is finished; this thread follows the operation meanwhile.
    BenchConfig during = cfg;
    during.latency_seconds = kDuringLimitSeconds;
    std::atomic<bool> started{false};
    std::thread follow([&] {
      while (!started.load()) SleepMs(1);
      followed = follower.FollowUntil(deadline);
    });
    r.latency_during =
        RunLatency(during, mode,
                   {.phase = "w5-lat-during",
                    .on_start =
                        [&] {
                          follower.Start();
                          started.store(true);
                        },
                    .until = [&] { return follower.finished() || NowNs() > deadline; }});
    follow.join();
  } else {
    follower.Start();
    followed = follower.FollowUntil(deadline);
  }
  follower.Report(r);
  r.timed_out = !followed;

  Client stats(ClientOptionsFor(cfg, kStatsTimeout));
  if (Result<StatusCounts> c = stats.Stats(r.queue); c.ok()) {
    r.pending_after = c->pending;
    r.dead_after = c->deadletter;
  }
  if (r.error.empty()) {
    if (r.timed_out) {
      r.error = "timed out waiting for the operation to finish";
    } else if (r.state != "completed") {
      r.error = "the operation ended " + r.state;
    } else if (r.done != r.jobs || r.failed != 0) {
      r.error = "the operation retried " + std::to_string(r.done) + " of " +
                std::to_string(r.jobs) + " jobs (" + std::to_string(r.failed) + " failed)";
    } else if (r.pending_after != r.jobs || r.dead_after != 0) {
      r.error = "after the operation the queue holds " + std::to_string(r.pending_after) +
                " pending and " + std::to_string(r.dead_after) + " dead jobs";
    } else if (r.latency_alone && !r.latency_alone->ok) {
      r.error = "W2 alone: " + r.latency_alone->error;
    } else if (r.latency_during && !r.latency_during->ok) {
      r.error = "W2 during the operation: " + r.latency_during->error;
    }
  }
  r.ok = r.error.empty();
  return r;
}

}  // namespace redrive::bench
