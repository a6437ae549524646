#include "sdk/ack_queue.h"

#include <boost/json/serialize.hpp>

namespace redrive::sdk {

std::optional<Ack> AckOf(const ClaimedJob& job, const HandlerResult& result) {
  switch (result.kind()) {
    case HandlerResult::Kind::kSuccess:
      return Ack::Complete(job.id, job.lease_id, result.result());
    case HandlerResult::Kind::kRetryableFailure:
    case HandlerResult::Kind::kNonRetryableFailure:
      return Ack::Fail(job.id, job.lease_id, result.error(),
                       result.kind() == HandlerResult::Kind::kNonRetryableFailure,
                       result.retry_after(), result.details());
    case HandlerResult::Kind::kSnooze:
      return std::nullopt;
  }
  return std::nullopt;
}

HandlerResult ResultOfAck(const Ack& ack) {
  if (!ack.error) return HandlerResult::Success(ack.result.value_or(nullptr));
  HandlerResult failure = ack.no_retry
                              ? HandlerResult::NonRetryableFailure(*ack.error)
                              : HandlerResult::RetryableFailure(*ack.error, ack.retry_after);
  if (ack.details) failure.WithDetails(*ack.details);
  return failure;
}

size_t AckBytes(const Ack& ack) {
  // The field names, quotes and an integer or two; the id and lease are UUIDs.
  size_t bytes = 96 + ack.id.size() + ack.lease_id.size();
  if (ack.error) bytes += ack.error->size();
  if (ack.details) bytes += boost::json::serialize(*ack.details).size();
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
  // The server's answer, as its fail route gives it; nothing is derived here.
  FailResult failure;
  failure.will_retry = answer.will_retry.value_or(false);
  failure.status =
      answer.status.value_or(failure.will_retry ? JobStatus::kScheduled : JobStatus::kDeadletter);
  failure.retry_count = answer.retry_count.value_or(0);
  failure.scheduled_at = answer.scheduled_at;
  failure.dead_reason = answer.dead_reason;
  effect.kind = AckEffect::Kind::kFailed;
  effect.failure = failure;
  return effect;
}

}  // namespace redrive::sdk
