#include "core/realtime_event.h"

namespace redrive {

std::string_view RealtimeEventTypeName(RealtimeEventType type) {
  switch (type) {
    case RealtimeEventType::kJobCreated:
      return "JobCreated";
    case RealtimeEventType::kJobStatusChange:
      return "JobStatusChange";
    case RealtimeEventType::kJobCompleted:
      return "JobCompleted";
    case RealtimeEventType::kJobFailed:
      return "JobFailed";
    case RealtimeEventType::kWorkerRegistered:
      return "WorkerRegistered";
    case RealtimeEventType::kWorkerDeregistered:
      return "WorkerDeregistered";
  }
  return "Unknown";
}

bool EventFilter::Matches(const RealtimeEvent& event) const {
  if (!scope.Allows(event.queue_name)) return false;
  if (queue_name && *queue_name != event.queue_name) return false;
  if (job_id && *job_id != event.job_id) return false;
  return true;
}

}  // namespace redrive
