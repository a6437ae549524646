// redrive::sdk::Worker: the worker runtime. It registers, long-polls for jobs
// up to its free slots plus a small prefetch, runs the handler on one thread
// per slot, heartbeats each job it holds at a fraction of its lease, and
// completes or fails it.
//
//   redrive::Worker worker({.queue = "emails", .concurrency = 4},
//                          [](const redrive::JobContext& job) {
//                            send_email(job.payload());
//                            return redrive::HandlerResult::Success();
//                          });
//   return worker.RunUntilSignal().ok() ? 0 : 1;  // SIGTERM/SIGINT: graceful stop
//
// Batching (on by default; WorkerOptions::batch_acks, prefetch): a finished
// job's complete or fail travels as an ack on the next claim, which the server
// applies before claiming, in the same request; when no claim is about to be
// sent (one is long-polling already), the outcomes that finished meanwhile go
// together in one POST /jobs/ack within max_ack_delay. With concurrency > 1
// the worker also claims a few jobs beyond its free slots and starts them as
// slots free up, so no slot waits for a claim's round trip. A failure's ack
// carries its details, and its answer is the fail call's (OnDeath gets the
// server's dead_reason). Snoozes keep their own calls.
//
// Lease loss: when a job's heartbeat answers LEASE_EXPIRED (or CONFLICT: the
// job was cancelled or finished elsewhere), or its lease passes without a
// successful heartbeat, the job's token is cancelled and whatever the handler
// returns afterwards is dropped (a prefetched job is not started): the
// server has already given the job to someone else (or retried it).
//
// Shutdown: Stop() stops claiming, waits up to grace_period for running
// handlers to finish and report, then cancels the tokens of the handlers
// still running (their results are dropped) and deregisters, which puts their
// jobs, and the prefetched jobs never started, back to pending without
// charging a retry. Stop() returns once every handler thread has returned, so
// handlers should watch their token — and must not call Stop() themselves (it
// would wait for its own thread).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "redrive/client.h"
#include "redrive/types.h"

namespace redrive::sdk {

// Tells a handler to stop. Copies share one state. Thread-safe.
class CancellationToken {
 public:
  CancellationToken();
  bool cancelled() const;
  // Blocks until cancelled or `timeout` passes; true when cancelled. A
  // handler's interruptible sleep: `if (job.token().WaitFor(5s)) return ...`.
  bool WaitFor(std::chrono::milliseconds timeout) const;
  void Wait() const;  // until cancelled
  void Cancel();      // idempotent

 private:
  struct State;
  std::shared_ptr<State> state_;
};

// What a handler sees: the claimed job and its cancellation token.
class JobContext {
 public:
  JobContext(ClaimedJob job, CancellationToken token)
      : job_(std::move(job)), token_(std::move(token)) {}

  const ClaimedJob& job() const { return job_; }
  const std::string& id() const { return job_.id; }
  const std::string& queue() const { return job_.queue_name; }
  const boost::json::value& payload() const { return job_.payload; }
  int retry_count() const { return job_.retry_count; }  // failures charged so far
  int max_retries() const { return job_.max_retries; }
  int attempts() const { return job_.attempts; }  // claims so far, this one included
  const Tags& tags() const { return job_.tags; }

  const CancellationToken& token() const { return token_; }
  bool cancelled() const { return token_.cancelled(); }

 private:
  ClaimedJob job_;
  CancellationToken token_;
};

// A handler's outcome.
class HandlerResult {
 public:
  enum class Kind { kSuccess, kRetryableFailure, kNonRetryableFailure, kSnooze };

  static HandlerResult Success(boost::json::value result = nullptr);
  // retry_after replaces the server's computed backoff (e.g. a Retry-After).
  static HandlerResult RetryableFailure(
      std::string error, std::optional<std::chrono::milliseconds> retry_after = std::nullopt);
  static HandlerResult NonRetryableFailure(std::string error);  // straight to the DLQ
  // "Not now": the job runs again after `delay` without spending a retry
  // (POST /jobs/{id}/snooze). Once the job has used its max_snoozes the
  // server refuses, and the worker fails the attempt instead (a retryable
  // failure whose error says so).
  static HandlerResult Snooze(std::chrono::milliseconds delay);
  // Sent with a failure as FailOptions::details, or in its ack (the attempt's
  // exit code, ...).
  HandlerResult& WithDetails(boost::json::object details) {
    details_ = std::move(details);
    return *this;
  }

  Kind kind() const { return kind_; }
  const boost::json::value& result() const { return result_; }
  const std::string& error() const { return error_; }
  const std::optional<std::chrono::milliseconds>& retry_after() const { return retry_after_; }
  std::chrono::milliseconds snooze_delay() const { return snooze_delay_; }
  const std::optional<boost::json::object>& details() const { return details_; }

 private:
  Kind kind_ = Kind::kSuccess;
  boost::json::value result_;
  std::string error_;
  std::optional<std::chrono::milliseconds> retry_after_;
  std::optional<boost::json::object> details_;
  std::chrono::milliseconds snooze_delay_{0};
};

// A handler; an exception it throws is a retryable failure with e.what().
using Handler = std::function<HandlerResult(const JobContext&)>;

struct WorkerOptions {
  std::string queue;
  int concurrency = 1;  // handler slots
  std::chrono::seconds lease{30};
  // Each running job is heartbeated every lease × heartbeat_fraction.
  double heartbeat_fraction = 1.0 / 3;
  std::chrono::milliseconds claim_wait{20'000};  // long-poll per claim, ≤ 30 s
  std::chrono::milliseconds grace_period{30'000};
  std::string hostname;  // empty: gethostname()
  std::string worker_type = "cpp";
  std::string version;
  std::string worker_id;  // empty: <hostname>-<pid>-<n>
  // POST /workers/{id}/heartbeat period (current_jobs, status).
  std::chrono::milliseconds worker_heartbeat_interval{10'000};
  // Pause after a failed claim (transport error, server refusal).
  std::chrono::milliseconds error_backoff{1'000};
  // Jobs claimed beyond the free slots, held locally and started as slots
  // free up. Their leases are heartbeated like running jobs' (and their
  // timeout_seconds runs from the claim); at Stop() they go back to pending
  // unrun, without a retry charged. -1: concurrency / 4, at least 1, when
  // concurrency > 1, else 0. 0 turns prefetching off.
  int prefetch = -1;
  // Send completes and fails as acks: on the next claim, or together in one
  // POST /jobs/ack when no claim is about to be sent. false: one complete or
  // fail request per job.
  bool batch_acks = true;
  // The longest a finished job's outcome waits for a claim already under way
  // to carry it, before it is sent without one.
  std::chrono::milliseconds max_ack_delay{5};
};

// Fires when a job this worker failed went to the DLQ: on the handler's thread,
// or, for a batched ack, on the thread that sent it (the claimer's or the
// acker's), so keep it short.
using DeathCallback =
    std::function<void(const ClaimedJob&, const FailResult&, const std::string& error)>;
// Fires on errors the runtime handles itself (a failed claim, ack, fail, heartbeat), for logging.
using ErrorCallback = std::function<void(const Status&)>;

// Counters, for tests and metrics.
struct WorkerStats {
  long long claimed = 0;
  long long completed = 0;
  long long failed = 0;           // fail calls accepted
  long long dead = 0;             // of those, to the DLQ
  long long leases_lost = 0;      // tokens cancelled by lease loss
  long long results_dropped = 0;  // handler outcomes not sent (lease lost, shutdown)
  long long snoozed = 0;          // snoozes accepted
};

class Worker {
 public:
  // Talks to the default server (http://127.0.0.1:7070, no key).
  Worker(WorkerOptions options, Handler handler);
  Worker(ClientOptions client, WorkerOptions options, Handler handler);
  Worker(std::shared_ptr<Client> client, WorkerOptions options, Handler handler);
  ~Worker();  // Stop()s a running worker
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  // Set before Start().
  void OnDeath(DeathCallback callback);
  void OnError(ErrorCallback callback);

  // Registers and starts claiming; returns at once. Fails if registration
  // fails (e.g. the server is down or the key is refused).
  Status Start();
  // Graceful stop (see above); idempotent. Returns the deregistration's status.
  Status Stop();
  // Start(), then block until Stop() is called (from another thread).
  Status Run();
  // Start(), block until SIGTERM or SIGINT, then Stop(). Blocks those signals
  // in the calling thread (and so in the threads it starts) to sigwait them.
  Status RunUntilSignal();

  const std::string& worker_id() const;  // valid after Start()
  WorkerStats stats() const;
  int running_jobs() const;  // started and not yet reported (prefetched ones not included)

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace redrive::sdk

namespace redrive {
using Worker = sdk::Worker;
using WorkerOptions = sdk::WorkerOptions;
using JobContext = sdk::JobContext;
using HandlerResult = sdk::HandlerResult;
}  // namespace redrive
