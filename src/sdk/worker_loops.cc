// Worker: the claimer, slot and heartbeat loops (see worker_impl.h); the
// acker is in worker_acks.cc.
#include <algorithm>
#include <exception>

#include "core/limits.h"
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

void Worker::Impl::ForgetLocked(const std::shared_ptr<HeldJob>& held) {
  // Only this claim of the job: the same job claimed again since (after a
  // lease loss) is another HeldJob.
  auto it = held_.find(held->job.id);
  if (it != held_.end() && it->second == held) held_.erase(it);
}

void Worker::Impl::Forget(const std::shared_ptr<HeldJob>& held) {
  {
    std::lock_guard lock(mu_);
    ForgetLocked(held);
  }
  cv_.notify_all();  // capacity for the claimer; Stop() waits for no active job
}

int Worker::Impl::CapacityLocked() const {
  const bool short_handlers = !handler_time_ || *handler_time_ < kPrefetchHandlerLimit;
  return options_.concurrency + (short_handlers ? prefetch_ : 0);
}

int Worker::Impl::FreeCapacityLocked() const {
  // A queued outcome frees its job's capacity in the claim that carries it.
  return CapacityLocked() - static_cast<int>(held_.size()) + static_cast<int>(acks_.size());
}

int Worker::Impl::ActiveJobsLocked() const {
  int active = 0;
  for (const auto& [id, held] : held_) active += held->state != HeldState::kBuffered;
  return active;
}

void Worker::Impl::HoldClaimedLocked(std::vector<ClaimedJob> jobs,
                                     SteadyClock::time_point sent_at) {
  for (ClaimedJob& job : jobs) {
    auto held = std::make_shared<HeldJob>();
    held->job = std::move(job);
    held->next_heartbeat = sent_at + HeartbeatPeriod();
    held->lease_deadline = sent_at + options_.lease;
    held_[held->job.id] = held;
    // Claimed while stopping: held (and heartbeated) until deregistration
    // releases it, never run.
    if (!stopping_) buffered_.push_back(std::move(held));
    ++stats_.claimed;
  }
}

Result<ClaimResult> Worker::Impl::SendClaim(int limit, const std::vector<PendingAck>& acks) {
  ClaimRequest request{.queue_name = options_.queue,
                       .worker_id = worker_id,
                       .limit = std::min(limit, kMaxClaimLimit),
                       .lease_duration_secs = static_cast<int>(options_.lease.count()),
                       .wait = options_.claim_wait};
  if (acks.empty()) return claim_client_.Claim(request, claim_stop_.get_token());
  // No long poll with acks: their answers must come back at once, and Stop()
  // must not cut them off.
  request.wait = std::chrono::milliseconds(0);
  request.acks.emplace();
  for (const PendingAck& pending : acks) request.acks->push_back(pending.ack);
  Result<ClaimResult> claim = claim_client_.Claim(request);
  if (claim.ok()) {
    ResolveAcks(acks, claim->results);
  } else {
    ResolveAcks(acks, claim.status());
  }
  return claim;
}

void Worker::Impl::ClaimLoop() {
  for (;;) {
    AckQueue::Batch batch;
    int limit;
    {
      std::unique_lock lock(mu_);
      claimer_waiting_ = true;
      cv_.wait(lock, [&] { return stopping_ || FreeCapacityLocked() > 0; });
      claimer_waiting_ = false;
      if (stopping_) break;
      claim_cycle_since_ = SteadyClock::now();
      batch = acks_.Take();
      DropLocked(batch.dropped);
      // The acks are applied before the claim: their jobs' capacity is free.
      limit = CapacityLocked() - static_cast<int>(held_.size() - batch.acks.size());
    }
    if (limit < 1) {  // room for none: the capacity shrank; the acks go alone
      SendAcksAlone(batch.acks);
      continue;
    }
    const auto sent_at = SteadyClock::now();
    Result<ClaimResult> claim = SendClaim(limit, batch.acks);
    std::unique_lock lock(mu_);
    if (!claim.ok()) {
      if (stopping_) break;
      claim_cycle_since_.reset();  // the acker sends outcomes during the backoff
      lock.unlock();
      cv_.notify_all();
      Error(claim.status());
      lock.lock();
      cv_.wait_for(lock, options_.error_backoff, [&] { return stopping_; });
      continue;
    }
    HoldClaimedLocked(std::move(claim->jobs), sent_at);
    cv_.notify_all();
  }
  std::lock_guard lock(mu_);
  claim_cycle_since_.reset();
  cv_.notify_all();
}

void Worker::Impl::SlotLoop() {
  for (;;) {
    std::shared_ptr<HeldJob> held;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return slots_exit_ || !buffered_.empty(); });
      if (buffered_.empty()) return;  // slots_exit_
      held = std::move(buffered_.front());
      buffered_.pop_front();
      if (held->lost) {
        // Its lease was lost while it waited: someone else may run it now.
        ForgetLocked(held);
        cv_.notify_all();
        continue;
      }
      held->state = HeldState::kRunning;
    }
    Execute(held);
  }
}

void Worker::Impl::Execute(const std::shared_ptr<HeldJob>& held) {
  JobContext context(held->job, held->token);
  HandlerResult result = HandlerResult::Success();
  const auto started = SteadyClock::now();
  try {
    result = handler_(context);
  } catch (const std::exception& e) {
    result = HandlerResult::RetryableFailure(std::string("handler threw: ") + e.what());
  } catch (...) {
    result = HandlerResult::RetryableFailure("handler threw a non-standard exception");
  }
  {
    const std::chrono::duration<double> took = SteadyClock::now() - started;
    std::lock_guard lock(mu_);
    handler_time_ = handler_time_ ? *handler_time_ * 0.8 + took * 0.2 : took;
  }
  Report(held, result);
}

void Worker::Impl::Report(const std::shared_ptr<HeldJob>& held, const HandlerResult& result) {
  std::optional<PendingAck> pending;
  if (options_.batch_acks) {
    if (std::optional<Ack> ack = AckOf(held->job, result)) {
      const size_t bytes = AckBytes(*ack);  // serializes a result: not under mu_
      pending = PendingAck{held, std::move(*ack), bytes};
    }
  }
  {
    std::lock_guard lock(mu_);
    if (held->lost) {
      // The job is someone else's now (or released at shutdown): a late
      // outcome must not be sent, and would be refused anyway.
      ++stats_.results_dropped;
      ForgetLocked(held);
      cv_.notify_all();
      return;
    }
    if (pending) {
      acks_.Push(std::move(*pending));
      cv_.notify_all();  // the claimer or the acker sends it
      return;
    }
    held->state = HeldState::kAcking;
  }
  SendOutcome(held, result);
}

void Worker::Impl::SendOutcome(const std::shared_ptr<HeldJob>& held, const HandlerResult& result) {
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
    Forget(held);
    return;
  }
  AckEffect effect;  // kDropped, and a refused completion is only counted
  if (result.kind() == HandlerResult::Kind::kSuccess) {
    if (client_->Complete(job.id, worker_id, job.lease_id, result.result()).ok()) {
      effect.kind = AckEffect::Kind::kCompleted;
    }
  } else {
    FailOptions options{.no_retry = result.kind() == HandlerResult::Kind::kNonRetryableFailure,
                        .retry_after = result.retry_after(),
                        .details = result.details()};
    auto failed = client_->Fail(job.id, worker_id, job.lease_id, result.error(), options);
    if (failed.ok()) {
      effect.kind = AckEffect::Kind::kFailed;
      effect.failure = *failed;
    } else {
      effect.error = failed.status();
    }
  }
  Settle(held, effect, result.error());
}

void Worker::Impl::Settle(const std::shared_ptr<HeldJob>& held, const AckEffect& effect,
                          const std::string& error) {
  const bool dead =
      effect.kind == AckEffect::Kind::kFailed && effect.failure->status == JobStatus::kDeadletter;
  {
    std::lock_guard lock(mu_);
    switch (effect.kind) {
      case AckEffect::Kind::kCompleted:
        ++stats_.completed;
        break;
      case AckEffect::Kind::kFailed:
        ++stats_.failed;
        if (dead) ++stats_.dead;
        break;
      case AckEffect::Kind::kDropped:
        ++stats_.results_dropped;
        break;
    }
  }
  if (dead && on_death) on_death(held->job, *effect.failure, error);
  if (!effect.error.ok()) Error(effect.error);
  Forget(held);
}

void Worker::Impl::HeartbeatDueJobs() {
  const int lease_secs = static_cast<int>(options_.lease.count());
  std::vector<std::shared_ptr<HeldJob>> due;
  {
    std::lock_guard lock(mu_);
    const auto now = SteadyClock::now();
    for (auto& [id, held] : held_) {
      // An outcome on its way ends the lease: a heartbeat would race it.
      if (held->lost || held->state == HeldState::kAcking) continue;
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
      // Unless its outcome was sent meanwhile: then the refusal is the
      // outcome's doing, and the outcome's answer tells.
      auto it = held_.find(held->job.id);
      const bool current = it != held_.end() && it->second == held;
      if (current && held->state != HeldState::kAcking) MarkLostLocked(*held, /*lease_lost=*/true);
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
