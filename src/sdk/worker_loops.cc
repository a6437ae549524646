// Worker: the claimer, slot and heartbeat loops (see worker_impl.h).
#include <exception>

#include "sdk/worker_impl.h"

namespace redrive::sdk {
namespace {

// The server's answers that mean "you no longer hold this job".
bool MeansLeaseLost(const Status& s) {
  return s.code() == ErrorCode::kLeaseExpired || s.code() == ErrorCode::kConflict ||
         s.code() == ErrorCode::kNotFound;
}

}  // namespace

void Worker::Impl::Error(const Status& status) {
  if (on_error) on_error(status);
}

std::chrono::milliseconds Worker::Impl::HeartbeatPeriod() const {
  auto ms = std::chrono::duration<double, std::milli>(options_.lease) * options_.heartbeat_fraction;
  return std::max(std::chrono::milliseconds(100),
                  std::chrono::duration_cast<std::chrono::milliseconds>(ms));
}

void Worker::Impl::MarkLostLocked(HeldJob& held, bool lease_lost) {
  if (held.lost) return;
  held.lost = true;
  if (lease_lost) ++stats_.leases_lost;
  held.token.Cancel();
}

void Worker::Impl::Forget(const std::string& id) {
  {
    std::lock_guard lock(mu_);
    held_.erase(id);
  }
  cv_.notify_all();  // a free slot for the claimer; Stop() waits for none held
}

void Worker::Impl::ClaimLoop() {
  const int lease_secs = static_cast<int>(options_.lease.count());
  for (;;) {
    int free_slots;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock,
               [&] { return stopping_ || static_cast<int>(held_.size()) < options_.concurrency; });
      if (stopping_) break;
      free_slots = options_.concurrency - static_cast<int>(held_.size());
    }
    const auto sent_at = SteadyClock::now();
    auto claim = claim_client_.Claim({.queue_name = options_.queue,
                                      .worker_id = worker_id,
                                      .limit = std::min(free_slots, 100),
                                      .lease_duration_secs = lease_secs,
                                      .wait = options_.claim_wait});
    std::unique_lock lock(mu_);
    if (stopping_) break;  // anything claimed is released by deregistration
    if (!claim.ok()) {
      lock.unlock();
      Error(claim.status());
      lock.lock();
      cv_.wait_for(lock, options_.error_backoff, [&] { return stopping_; });
      continue;
    }
    for (ClaimedJob& job : claim->jobs) {
      auto held = std::make_shared<HeldJob>();
      held->job = std::move(job);
      held->next_heartbeat = sent_at + HeartbeatPeriod();
      held->lease_deadline = sent_at + options_.lease;
      held_[held->job.id] = held;
      queued_.push_back(std::move(held));
      ++stats_.claimed;
    }
    cv_.notify_all();
  }
  claimer_done_ = true;
  cv_.notify_all();
}

void Worker::Impl::SlotLoop() {
  for (;;) {
    std::shared_ptr<HeldJob> held;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return slots_exit_ || !queued_.empty(); });
      if (queued_.empty()) return;  // slots_exit_
      held = std::move(queued_.front());
      queued_.pop_front();
    }
    Execute(held);
  }
}

void Worker::Impl::Execute(const std::shared_ptr<HeldJob>& held) {
  JobContext context(held->job, held->token);
  HandlerResult result = HandlerResult::Success();
  try {
    result = handler_(context);
  } catch (const std::exception& e) {
    result = HandlerResult::RetryableFailure(std::string("handler threw: ") + e.what());
  } catch (...) {
    result = HandlerResult::RetryableFailure("handler threw a non-standard exception");
  }
  Report(held, result);
}

void Worker::Impl::Report(const std::shared_ptr<HeldJob>& held, const HandlerResult& result) {
  {
    std::lock_guard lock(mu_);
    if (held->lost) {
      // The job is someone else's now (or released at shutdown): a late
      // outcome must not be sent, and would be refused anyway.
      ++stats_.results_dropped;
      held_.erase(held->job.id);
      cv_.notify_all();
      return;
    }
  }
  const ClaimedJob& job = held->job;
  if (result.kind() == HandlerResult::Kind::kSnooze) {
    auto due = client_->Snooze(job.id, worker_id, job.lease_id, result.snooze_delay());
    if (!due.ok() && due.status().code() == ErrorCode::kConflict) {
      // Past max_snoozes: the lease is still ours, and the attempt fails instead.
      return Report(held,
                    HandlerResult::RetryableFailure("snooze refused: " + due.status().message()));
    }
    {
      std::lock_guard lock(mu_);
      ++(due.ok() ? stats_.snoozed : stats_.results_dropped);
    }
    if (!due.ok()) Error(due.status());
    Forget(job.id);
    return;
  }
  if (result.kind() == HandlerResult::Kind::kSuccess) {
    Status s = client_->Complete(job.id, worker_id, job.lease_id, result.result());
    std::lock_guard lock(mu_);
    if (s.ok())
      ++stats_.completed;
    else
      ++stats_.results_dropped;
  } else {
    FailOptions options{.no_retry = result.kind() == HandlerResult::Kind::kNonRetryableFailure,
                        .retry_after = result.retry_after(),
                        .details = result.details()};
    auto failed = client_->Fail(job.id, worker_id, job.lease_id, result.error(), options);
    if (failed.ok()) {
      {
        std::lock_guard lock(mu_);
        ++stats_.failed;
        if (failed->status == JobStatus::kDeadletter) ++stats_.dead;
      }
      if (failed->status == JobStatus::kDeadletter && on_death) {
        on_death(job, *failed, result.error());
      }
    } else {
      std::lock_guard lock(mu_);
      ++stats_.results_dropped;
    }
    if (!failed.ok()) Error(failed.status());
  }
  Forget(job.id);
}

void Worker::Impl::HeartbeatDueJobs() {
  const int lease_secs = static_cast<int>(options_.lease.count());
  std::vector<std::shared_ptr<HeldJob>> due;
  {
    std::lock_guard lock(mu_);
    const auto now = SteadyClock::now();
    for (auto& [id, held] : held_) {
      if (held->lost) continue;
      if (now >= held->lease_deadline) {
        MarkLostLocked(*held, /*lease_lost=*/true);  // no heartbeat got through in time
      } else if (now >= held->next_heartbeat) {
        due.push_back(held);
      }
    }
  }
  for (const auto& held : due) {
    const auto sent_at = SteadyClock::now();
    auto r = client_->Heartbeat(held->job.id, worker_id, held->job.lease_id, lease_secs);
    std::lock_guard lock(mu_);
    if (r.ok()) {
      held->lease_deadline = sent_at + options_.lease;
      held->next_heartbeat = sent_at + HeartbeatPeriod();
    } else if (MeansLeaseLost(r.status())) {
      MarkLostLocked(*held, /*lease_lost=*/true);
    } else {
      // Transport trouble: try again soon; the lease deadline still holds.
      held->next_heartbeat = SteadyClock::now() + std::chrono::milliseconds(500);
    }
  }
}

void Worker::Impl::SendWorkerHeartbeat() {
  WorkerHeartbeatRequest request;
  {
    std::lock_guard lock(mu_);
    request.current_jobs = static_cast<int>(held_.size());
    request.status = stopping_ ? "draining" : "healthy";
  }
  auto r = client_->WorkerHeartbeat(worker_id, request);
  if (!r.ok()) Error(r.status());
}

void Worker::Impl::HeartbeatLoop() {
  auto next_worker_heartbeat = SteadyClock::now() + options_.worker_heartbeat_interval;
  for (;;) {
    {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, std::chrono::milliseconds(100), [&] { return heartbeat_exit_; });
      if (heartbeat_exit_) return;
    }
    HeartbeatDueJobs();
    if (SteadyClock::now() >= next_worker_heartbeat) {
      SendWorkerHeartbeat();
      next_worker_heartbeat = SteadyClock::now() + options_.worker_heartbeat_interval;
    }
  }
}

}  // namespace redrive::sdk
