#include "wire/queue_json.h"

#include "wire/job_json.h"
#include "wire/time_json.h"

namespace redrive::wire {
namespace {

boost::json::value SecondsOrNull(const std::optional<std::chrono::seconds>& s) {
  if (!s) return nullptr;
  return s->count();
}

}  // namespace

boost::json::object StatusCountsToJson(const StatusCounts& counts) {
  return {{"pending", counts.pending},         {"scheduled", counts.scheduled},
          {"processing", counts.processing},   {"completed", counts.completed},
          {"deadletter", counts.deadletter},   {"cancelled", counts.cancelled},
          {"quarantined", counts.quarantined}, {"blocked", counts.blocked}};
}

boost::json::object JobStatsToJson(const StatusCounts& counts) {
  boost::json::object out = StatusCountsToJson(counts);
  out["failed"] = 0;
  out["total"] = counts.total();
  return out;
}

boost::json::object RetentionToJson(const RetentionPolicy& retention) {
  return {{"completed_seconds", SecondsOrNull(retention.completed)},
          {"deadletter_seconds", SecondsOrNull(retention.deadletter)},
          {"cancelled_seconds", SecondsOrNull(retention.cancelled)}};
}

boost::json::object QueueConfigToJson(const QueueConfig& config) {
  boost::json::object out;
  out["id"] = config.queue_name;
  out["organization_id"] = kOrganizationId;
  out["queue_name"] = config.queue_name;
  out["max_retries"] = config.max_retries;
  out["default_timeout"] = config.default_timeout;
  out["enabled"] = config.enabled;
  out["paused"] = config.paused;
  if (config.paused_reason) {
    out["paused_reason"] = *config.paused_reason;
  } else {
    out["paused_reason"] = nullptr;
  }
  out["backoff"] = BackoffToJson(config.backoff);
  out["crash_limit"] = config.crash_limit;
  out["max_snoozes"] = config.max_snoozes;
  out["retention"] = RetentionToJson(config.retention);
  out["created_at"] = TimeToJson(config.created_at);
  out["updated_at"] = TimeToJson(config.updated_at);
  return out;
}

boost::json::object QueueViewToJson(const QueueConfig& config, const StatusCounts& counts,
                                    const std::optional<Instant>& oldest_deadletter_at) {
  boost::json::object out = QueueConfigToJson(config);
  out["counts"] = StatusCountsToJson(counts);
  out["oldest_deadletter_at"] = TimeToJson(oldest_deadletter_at);
  return out;
}

}  // namespace redrive::wire
