// Worker's private runtime: three kinds of threads around one table of the
// jobs this worker holds.
//
//   claimer     long-polls POST /jobs/claim for up to the free slots and
//               queues what it gets;
//   slots (×N)  run the handler on a queued job, then complete or fail it;
//   heartbeater extends each held job's lease every lease × fraction,
//               cancels the token of a job whose lease is lost, and sends the
//               worker's own heartbeat.
//
// All shared state is guarded by mu_; network calls are made without it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "redrive/worker.h"

namespace redrive::sdk {

using SteadyClock = std::chrono::steady_clock;

// A job this worker holds, from its claim until it is reported or dropped.
struct HeldJob {
  ClaimedJob job;
  CancellationToken token;
  SteadyClock::time_point next_heartbeat;
  // When the lease ends as far as this worker knows: the send time of the
  // last successful claim/heartbeat plus the lease. Past it without a newer
  // heartbeat, the server has (or soon will have) given the job away.
  SteadyClock::time_point lease_deadline;
  bool lost = false;  // lease lost or shutdown: its outcome is not reported
};

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
  int held_jobs() const;

 private:
  void ClaimLoop();
  void SlotLoop();
  void HeartbeatLoop();

  void Execute(const std::shared_ptr<HeldJob>& held);
  void Report(const std::shared_ptr<HeldJob>& held, const HandlerResult& result);
  void HeartbeatDueJobs();
  void SendWorkerHeartbeat();
  // REQUIRES: mu_ held. Marks the job lost and cancels its token.
  void MarkLostLocked(HeldJob& held, bool lease_lost);
  void Forget(const std::string& id);  // drops a job from the table
  void Error(const Status& status);
  std::chrono::milliseconds HeartbeatPeriod() const;

  std::shared_ptr<Client> client_;  // heartbeats, complete, fail, registry
  Client claim_client_;             // its own pool: Stop() aborts its long-poll
  const WorkerOptions options_;
  const Handler handler_;

  mutable std::mutex mu_;
  std::condition_variable cv_;  // any change below
  bool started_ = false;
  bool stopping_ = false;    // no more claims; queued jobs are dropped
  bool slots_exit_ = false;  // slot threads return once the queue is empty
  bool heartbeat_exit_ = false;
  bool stopped_ = false;
  Status stop_status_;
  std::map<std::string, std::shared_ptr<HeldJob>> held_;  // by job id
  std::deque<std::shared_ptr<HeldJob>> queued_;           // claimed, not started
  WorkerStats stats_;

  std::atomic<bool> claimer_done_{false};
  std::thread claimer_;
  std::thread heartbeater_;
  std::vector<std::thread> slots_;
};

}  // namespace redrive::sdk
