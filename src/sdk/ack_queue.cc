#include "sdk/ack_queue.h"

#include <boost/json/serialize.hpp>

namespace redrive::sdk {

std::optional<Ack> AckOf(const ClaimedJob& job, const HandlerResult& result) {
  switch (result.kind()) {
    case HandlerResult::Kind::kSuccess:
      return Ack::Complete(job.id, job.lease_id, result.result());
    case HandlerResult::Kind::kRetryableFailure:
    case HandlerResult::Kind::kNonRetryableFailure:
      if (result.details()) return std::nullopt;  // acks have no `details`
      return Ack::Fail(job.id, job.lease_id, result.error(),
                       result.kind() == HandlerResult::Kind::kNonRetryableFailure,
                       result.retry_after());
    case HandlerResult::Kind::kSnooze:
      return std::nullopt;
  }
  return std::nullopt;
}

HandlerResult ResultOfAck(const Ack& ack) {
  if (!ack.error) return HandlerResult::Success(ack.result.value_or(nullptr));
  if (ack.no_retry) return HandlerResult::NonRetryableFailure(*ack.error);
  return HandlerResult::RetryableFailure(*ack.error, ack.retry_after);
}

size_t AckBytes(const Ack& ack) {
  // The field names, quotes and an integer or two; the id and lease are UUIDs.
  size_t bytes = 96 + ack.id.size() + ack.lease_id.size();
  if (ack.error) bytes += ack.error->size();
  if (ack.result && !ack.result->is_null()) bytes += boost::json::serialize(*ack.result).size();
  return bytes;
}

void AckQueue::Push(PendingAck pending) {
  pending.held->state = HeldState::kReported;
  queue_.push_back(std::move(pending));
}

AckQueue::Batch AckQueue::Take(size_t max_acks, size_t max_bytes) {
  Batch batch;
  size_t bytes = 0;
  while (!queue_.empty() && batch.acks.size() < max_acks) {
    PendingAck& next = queue_.front();
    if (next.held->lost) {
      batch.dropped.push_back(std::move(next.held));
      queue_.pop_front();
      continue;
    }
    if (!batch.acks.empty() && bytes + next.bytes > max_bytes) break;
    bytes += next.bytes;
    next.held->state = HeldState::kAcking;
    batch.acks.push_back(std::move(next));
    queue_.pop_front();
  }
  return batch;
}

namespace {

// Why a failed job went to the DLQ, as core's DecideFailure decides it for a
// fail call: this worker held the job since the claim, so its retry_count
// and max_retries are the claim's.
DeadReason DeadReasonOf(const ClaimedJob& job, const Ack& ack) {
  if (ack.no_retry) return DeadReason::kNonRetryable;
  if (job.retry_count >= job.max_retries) return DeadReason::kMaxRetriesExceeded;
  return DeadReason::kExpired;  // a retry would have come after expires_at
}

}  // namespace

AckEffect EffectOf(const PendingAck& sent, const AckResult& answer) {
  AckEffect effect;
  if (!answer.success) {
    if (sent.ack.error) effect.error = answer.error;
    return effect;  // kDropped
  }
  if (!sent.ack.error) {
    effect.kind = AckEffect::Kind::kCompleted;
    return effect;
  }
  const ClaimedJob& job = sent.held->job;
  FailResult failure;
  failure.will_retry = answer.will_retry.value_or(false);
  failure.status =
      answer.status.value_or(failure.will_retry ? JobStatus::kScheduled : JobStatus::kDeadletter);
  failure.retry_count = job.retry_count + (failure.will_retry ? 1 : 0);
  if (failure.status == JobStatus::kDeadletter) failure.dead_reason = DeadReasonOf(job, sent.ack);
  effect.kind = AckEffect::Kind::kFailed;
  effect.failure = failure;
  return effect;
}

}  // namespace redrive::sdk
