// Worker: the acker, and the answers to batched acks (see worker_impl.h for
// when an outcome is sent, ack_queue.h for what an answer means).
#include "sdk/worker_impl.h"

namespace redrive::sdk {
namespace {

// A refusal of the whole request: the server answered, so it applied none of
// the acks (a malformed ack, or a body over its limit, fails them all). Not
// so for SERVICE_UNAVAILABLE, which is also what a lost connection gives, or
// a 500: the acks may have been applied.
bool AppliedNone(const Status& status) {
  return status.code() != ErrorCode::kUnavailable && status.code() != ErrorCode::kInternal;
}

}  // namespace

std::optional<SteadyClock::time_point> Worker::Impl::AckFlushDueLocked() const {
  if (acker_exit_) return SteadyClock::now();
  // A waiting claimer claims at once, with the acks, when there is room: an
  // outcome frees room unless the capacity shrank (the prefetch paused).
  if (claimer_waiting_) {
    return FreeCapacityLocked() > 0 ? std::nullopt : std::optional(SteadyClock::now());
  }
  // A claim under way takes the queue when it comes back, unless that takes
  // longer than max_ack_delay (a long poll, a slow server). Backing off or
  // stopped, the claimer sends nothing soon.
  if (claim_cycle_since_) return *claim_cycle_since_ + options_.max_ack_delay;
  return SteadyClock::now();
}

void Worker::Impl::AckLoop() {
  for (;;) {
    AckQueue::Batch batch;
    {
      std::unique_lock lock(mu_);
      for (;;) {
        if (acks_.empty()) {
          if (acker_exit_) return;
          cv_.wait(lock);
          continue;
        }
        std::optional<SteadyClock::time_point> due = AckFlushDueLocked();
        if (!due) {
          cv_.wait(lock);
        } else if (SteadyClock::now() < *due) {
          cv_.wait_until(lock, *due);
        } else {
          break;
        }
      }
      batch = acks_.Take();
      DropLocked(batch.dropped);
    }
    cv_.notify_all();
    if (!batch.acks.empty()) SendAcksAlone(batch.acks);
  }
}

void Worker::Impl::SendAcksAlone(const std::vector<PendingAck>& sent) {
  std::vector<Ack> acks;
  acks.reserve(sent.size());
  for (const PendingAck& pending : sent) acks.push_back(pending.ack);
  Result<std::vector<AckResult>> answers = client_->AckBatch(worker_id, acks);
  if (!answers.ok()) Error(answers.status());
  ResolveAcks(sent, answers);
}

void Worker::Impl::DropLocked(const std::vector<std::shared_ptr<HeldJob>>& jobs) {
  for (const auto& held : jobs) {
    ++stats_.results_dropped;
    ForgetLocked(held);
  }
}

void Worker::Impl::ResolveAcks(const std::vector<PendingAck>& sent,
                               const Result<std::vector<AckResult>>& answers) {
  if (!answers.ok()) {
    if (AppliedNone(answers.status())) {
      // Each on its own, so that one bad ack costs only its own outcome.
      for (const PendingAck& pending : sent) SendOutcome(pending.held, ResultOfAck(pending.ack));
      return;
    }
    // As for a complete or fail call that got no answer: the outcome may or
    // may not be recorded; if not, the lease runs out and the job is retried.
    for (const PendingAck& pending : sent) Settle(pending.held, AckEffect{}, "");
    return;
  }
  if (answers->size() != sent.size()) {
    Error(Status::Internal("the server answered " + std::to_string(answers->size()) +
                           " results for " + std::to_string(sent.size()) + " acks"));
  }
  for (size_t i = 0; i < sent.size(); ++i) {
    const PendingAck& pending = sent[i];
    AckResult answer;
    if (i < answers->size() && (*answers)[i].id == pending.ack.id) {
      answer = (*answers)[i];
    } else {
      answer.error = Status::Internal("no answer for the ack of job " + pending.ack.id);
    }
    Settle(pending.held, EffectOf(pending, answer), pending.ack.error.value_or(""));
  }
}

}  // namespace redrive::sdk
