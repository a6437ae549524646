// Batched acks for the Worker: which outcomes can travel as acks, the queue
// of those waiting to be sent, and what each ack's answer means.
//
// A handler's outcome is queued here when it finishes. The worker sends the
// queue as `acks` on its next claim, or alone in POST /jobs/ack when no
// claim is about to be sent (worker_acks.cc). Each ack's answer is counted
// exactly as the answer of the job's own complete or fail call would be.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "core/limits.h"
#include "redrive/types.h"
#include "redrive/worker.h"
#include "sdk/held_job.h"

namespace redrive::sdk {

// The server refuses a request with more acks.
inline constexpr size_t kMaxAcksPerRequest = kMaxAcks;
// Acks beyond this many bytes of results and errors wait for the next
// request: a quarter of the server's default body limit (16 MiB), so a batch
// of large results is not refused whole.
inline constexpr size_t kMaxAckBytesPerRequest = 4 << 20;

// The ack that reports `result` for `job` (a failure's details included), or
// nullopt when an ack cannot carry it: a snooze, which keeps its own call.
std::optional<Ack> AckOf(const ClaimedJob& job, const HandlerResult& result);
// The handler outcome `ack` reports (to send it with its own call after all).
HandlerResult ResultOfAck(const Ack& ack);
// About how many bytes `ack` adds to a request body.
size_t AckBytes(const Ack& ack);

// A finished job's outcome, waiting to be sent or on its way.
struct PendingAck {
  std::shared_ptr<HeldJob> held;
  Ack ack;
  size_t bytes = 0;  // AckBytes(ack)
};

// The outcomes waiting to be sent, oldest first. Its size is bounded by the
// jobs the worker holds (one outcome each). Not thread-safe: the worker
// guards it with its mutex.
class AckQueue {
 public:
  // Marks the job kReported.
  void Push(PendingAck pending);
  bool empty() const { return queue_.empty(); }
  size_t size() const { return queue_.size(); }

  struct Batch {
    std::vector<PendingAck> acks;  // to send, oldest first; their jobs are now kAcking
    // Jobs lost (lease lost, or shutdown) while their outcome waited: the
    // outcome is not sent, as a late result would not be.
    std::vector<std::shared_ptr<HeldJob>> dropped;
  };
  // The next request's acks: the oldest, at most `max_acks` and about
  // `max_bytes` (one ack at least, however large).
  Batch Take(size_t max_acks = kMaxAcksPerRequest, size_t max_bytes = kMaxAckBytesPerRequest);

 private:
  std::deque<PendingAck> queue_;
};

// What one ack's answer means for the worker: what the job's own complete or
// fail call would have meant.
struct AckEffect {
  enum class Kind { kCompleted, kFailed, kDropped };
  Kind kind = Kind::kDropped;
  // kFailed: the answer POST /jobs/{id}/fail would have given, which the
  // server puts in a failure ack's answer (status, will_retry, retry_count,
  // scheduled_at, dead_reason).
  std::optional<FailResult> failure;
  // A refused failure's reason, reported like a refused fail call's (OnError);
  // OK otherwise (a refused completion is only counted, as today).
  Status error;
};
AckEffect EffectOf(const PendingAck& sent, const AckResult& answer);

}  // namespace redrive::sdk
