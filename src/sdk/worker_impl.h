// Worker's private runtime: four kinds of threads around one table of the
// jobs this worker holds (HeldJob, held_job.h).
//
//   claimer     long-polls POST /jobs/claim for up to its free capacity
//               (slots + prefetch) and buffers what it gets; each claim
//               carries the outcomes queued since the last one as `acks`;
//   slots (×N)  run the handler on a buffered job, then queue its outcome
//               (or report it with its own call: snooze, batch_acks off);
//   acker       sends queued outcomes in POST /jobs/ack when no claim is
//               about to carry them (worker_acks.cc);
//   heartbeater extends each held job's lease every lease × fraction,
//               cancels the token of a job whose lease is lost, and sends the
//               worker's own heartbeat.
//
// When an outcome is sent. The claimer, when it is waiting, claims as soon
// as an outcome is queued: an outcome frees capacity, so the claim always has
// room. A claim that carries acks does not long-poll (wait 0), so its acks'
// answers always come back, even at Stop(). When a claim is already under
// way, the acker gives it max_ack_delay from its sending to come back and
// take the queue, then sends the queue alone; when the claimer is backing off
// or has stopped, the acker sends at once. So an outcome waits at most
// max_ack_delay plus one request, and never behind a long poll.
//
// All shared state is guarded by mu_; network calls are made without it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "redrive/worker.h"
#include "sdk/ack_queue.h"
#include "sdk/held_job.h"

namespace redrive::sdk {

// The prefetch WorkerOptions asks for, with -1 resolved to its default.
int EffectivePrefetch(const WorkerOptions& options);
// Prefetching hides a claim's round trip (milliseconds) from handlers that
// take about as long; it buys nothing for handlers of a second or more, and
// would make a job wait in the buffer for up to such a handler — time taken
// from its timeout_seconds, which runs from the claim. So it pauses while
// handlers take this long on average.
inline constexpr std::chrono::seconds kPrefetchHandlerLimit{1};

class Worker::Impl {
 public:
  Impl(std::shared_ptr<Client> client, WorkerOptions options, Handler handler);
  ~Impl();

  Status Start();
  Status Stop();
  Status Run();

  DeathCallback on_death;
  ErrorCallback on_error;
  std::string worker_id;

  WorkerStats stats() const;
  int started_jobs() const;  // held and not buffered

 private:
  void ClaimLoop();
  void SlotLoop();
  void AckLoop();
  void HeartbeatLoop();

  // REQUIRES: mu_ held. The most jobs to hold now: the slots, plus the
  // prefetch while handlers are short (see kPrefetchHandlerLimit).
  int CapacityLocked() const;
  // REQUIRES: mu_ held. Capacity left for a claim that carries the queued acks.
  int FreeCapacityLocked() const;
  // REQUIRES: mu_ held. Jobs started and not yet reported.
  int ActiveJobsLocked() const;
  // REQUIRES: mu_ held. When the acker should send the queue; nullopt while
  // the claimer is waiting (it takes the queue itself).
  std::optional<SteadyClock::time_point> AckFlushDueLocked() const;
  // REQUIRES: mu_ held. Holds the claimed jobs; buffers them to run unless
  // stopping.
  void HoldClaimedLocked(std::vector<ClaimedJob> jobs, SteadyClock::time_point sent_at);

  // A claim for up to `limit` jobs that carries `acks` and resolves their
  // answers: a long poll when it carries none.
  Result<ClaimResult> SendClaim(int limit, const std::vector<PendingAck>& acks);
  void Execute(const std::shared_ptr<HeldJob>& held);
  void Report(const std::shared_ptr<HeldJob>& held, const HandlerResult& result);
  // The job's own complete or fail call.
  void SendOutcome(const std::shared_ptr<HeldJob>& held, const HandlerResult& result);
  // POST /jobs/ack with `sent`, then ResolveAcks.
  void SendAcksAlone(const std::vector<PendingAck>& sent);
  // Counts the answers to acks sent in one request (a claim or POST
  // /jobs/ack), fires OnDeath and OnError, and forgets the jobs. When the
  // whole request was refused, sends each outcome with its own call instead.
  // The caller reports the request's own error.
  void ResolveAcks(const std::vector<PendingAck>& sent,
                   const Result<std::vector<AckResult>>& answers);
  // The one place an answer to a finished job's outcome is accounted, sent
  // alone (SendOutcome) or as an ack (ResolveAcks): counts it as `effect`
  // says, fires OnDeath (with the failure's `error`) and OnError, then
  // forgets the job (so Stop() waits for the callbacks).
  void Settle(const std::shared_ptr<HeldJob>& held, const AckEffect& effect,
              const std::string& error);
  // REQUIRES: mu_ held. Counts and forgets jobs whose outcome was not sent.
  void DropLocked(const std::vector<std::shared_ptr<HeldJob>>& jobs);
  void HeartbeatDueJobs();
  void SendWorkerHeartbeat();
  // REQUIRES: mu_ held. Marks the job lost and cancels its token.
  void MarkLostLocked(HeldJob& held, bool lease_lost);
  void Forget(const std::shared_ptr<HeldJob>& held);  // drops a job from the table
  void ForgetLocked(const std::shared_ptr<HeldJob>& held);
  void Error(const Status& status);
  std::chrono::milliseconds HeartbeatPeriod() const;

  std::shared_ptr<Client> client_;  // heartbeats, complete, fail, ack, registry
  Client claim_client_;             // its own pool for the claimer's requests
  const WorkerOptions options_;
  const Handler handler_;
  int prefetch_ = 0;  // EffectivePrefetch(options_)

  mutable std::mutex mu_;
  std::condition_variable cv_;  // any change below
  bool started_ = false;
  bool stopping_ = false;    // no more claims; buffered jobs are not run
  bool slots_exit_ = false;  // slot threads return once the buffer is empty
  bool acker_exit_ = false;  // the acker sends what is queued, then returns
  bool heartbeat_exit_ = false;
  bool stopped_ = false;
  Status stop_status_;
  std::map<std::string, std::shared_ptr<HeldJob>> held_;  // by job id
  std::deque<std::shared_ptr<HeldJob>> buffered_;         // claimed, not started
  AckQueue acks_;                                         // outcomes not yet sent
  // The claimer: waiting for capacity (it will take the queued acks), or
  // busy with a claim since claim_cycle_since_; neither while it backs off
  // after an error or once it has stopped.
  bool claimer_waiting_ = false;
  std::optional<SteadyClock::time_point> claim_cycle_since_;
  WorkerStats stats_;
  // A moving average of how long handlers take (nullopt before the first).
  std::optional<std::chrono::duration<double>> handler_time_;

  std::stop_source claim_stop_;  // Stop(): ends the claimer's long poll
  std::thread claimer_;
  std::thread acker_;
  std::thread heartbeater_;
  std::vector<std::thread> slots_;
};

}  // namespace redrive::sdk
