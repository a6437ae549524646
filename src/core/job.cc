#include "core/job.h"

namespace redrive {

const char* JobStatusName(JobStatus s) {
  switch (s) {
    case JobStatus::kPending:
      return "pending";
    case JobStatus::kScheduled:
      return "scheduled";
    case JobStatus::kProcessing:
      return "processing";
    case JobStatus::kCompleted:
      return "completed";
    case JobStatus::kDeadletter:
      return "deadletter";
    case JobStatus::kCancelled:
      return "cancelled";
    case JobStatus::kQuarantined:
      return "quarantined";
    case JobStatus::kBlocked:
      return "blocked";
  }
  return "pending";
}

std::optional<JobStatus> ParseJobStatus(std::string_view s) {
  for (JobStatus st : kAllStatuses) {
    if (s == JobStatusName(st)) return st;
  }
  return std::nullopt;
}

bool IsTerminal(JobStatus s) {
  return s == JobStatus::kCompleted || s == JobStatus::kDeadletter || s == JobStatus::kCancelled ||
         s == JobStatus::kQuarantined;
}

const char* DeadReasonName(DeadReason r) {
  switch (r) {
    case DeadReason::kNone:
      return "";
    case DeadReason::kMaxRetriesExceeded:
      return "max_retries_exceeded";
    case DeadReason::kLeaseExpired:
      return "lease_expired";
    case DeadReason::kNonRetryable:
      return "non_retryable";
    case DeadReason::kExpired:
      return "expired";
  }
  return "";
}

std::optional<DeadReason> ParseDeadReason(std::string_view s) {
  for (DeadReason r : kAllDeadReasons) {
    if (s == DeadReasonName(r)) return r;
  }
  return std::nullopt;
}

std::string JobStatusNames() {
  std::string out;
  for (JobStatus s : kAllStatuses) out += (out.empty() ? "" : ", ") + std::string(JobStatusName(s));
  return out;
}

std::string DeadReasonNames() {
  std::string out;
  for (DeadReason r : kAllDeadReasons) {
    out += (out.empty() ? "" : ", ") + std::string(DeadReasonName(r));
  }
  return out;
}

}  // namespace redrive
