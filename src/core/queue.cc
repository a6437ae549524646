#include "core/queue.h"

#include "core/limits.h"

namespace redrive {

long long& StatusCounts::of(JobStatus s) {
  switch (s) {
    case JobStatus::kPending:
      return pending;
    case JobStatus::kScheduled:
      return scheduled;
    case JobStatus::kProcessing:
      return processing;
    case JobStatus::kCompleted:
      return completed;
    case JobStatus::kDeadletter:
      return deadletter;
    case JobStatus::kCancelled:
      return cancelled;
    case JobStatus::kQuarantined:
      return quarantined;
    case JobStatus::kBlocked:
      return blocked;
  }
  return pending;
}

std::string EffectiveWorkerStatus(const WorkerInfo& w, Instant now) {
  if (w.deregistered_at) return "offline";
  if (now - w.last_heartbeat_at >= std::chrono::seconds(3 * kHeartbeatIntervalSeconds)) {
    return "offline";
  }
  return w.status;
}

}  // namespace redrive
