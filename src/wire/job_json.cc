#include "wire/job_json.h"

#include "wire/json_text.h"
#include "wire/time_json.h"

namespace redrive::wire {
namespace {

boost::json::value OptionalString(const std::optional<std::string>& s) {
  if (!s) return nullptr;
  return boost::json::string(*s);
}

boost::json::object TagsToJson(const Tags& tags) {
  boost::json::object out;
  for (const auto& [key, value] : tags) out[key] = value;
  return out;
}

// The fields a Job and a JobSummary share, in the contract's order.
void AddIdentity(const Job& job, boost::json::object& out) {
  out["id"] = job.id;
  out["organization_id"] = kOrganizationId;
  out["queue_name"] = job.queue_name;
  out["status"] = JobStatusName(job.status);
}

void AddSettingsAndOutcome(const Job& job, boost::json::object& out) {
  out["priority"] = job.priority;
  out["retry_count"] = job.retry_count;
  out["max_retries"] = job.max_retries;
  out["timeout_seconds"] = job.timeout_seconds;
  out["backoff"] = BackoffToJson(job.backoff);
  out["last_error"] = OptionalString(job.last_error);
  out["dead_reason"] = DeadReasonToJson(job.dead_reason);
  out["error_fingerprint"] = OptionalString(job.error_fingerprint);
  out["tags"] = TagsToJson(job.tags);
  out["idempotency_key"] = OptionalString(job.idempotency_key);
}

void AddTimes(const Job& job, boost::json::object& out) {
  out["created_at"] = TimeToJson(job.created_at);
  out["updated_at"] = TimeToJson(job.updated_at);
  out["scheduled_at"] = TimeToJson(job.scheduled_at);
  out["started_at"] = TimeToJson(job.started_at);
  out["completed_at"] = TimeToJson(job.completed_at);
  out["expires_at"] = TimeToJson(job.expires_at);
  out["deadlettered_at"] = TimeToJson(job.deadlettered_at);
}

void AddLease(const Job& job, boost::json::object& out) {
  out["assigned_worker_id"] = OptionalString(job.assigned_worker_id);
  out["lease_id"] = OptionalString(job.lease_id);
  out["lease_expires_at"] = TimeToJson(job.lease_expires_at);
}

void AddCounters(const Job& job, boost::json::object& out) {
  out["attempts"] = job.attempts;
  out["lease_expiries"] = job.lease_expiries;
  out["crash_count"] = job.crash_count;
  out["crash_limit"] = job.crash_limit;
  out["snooze_count"] = job.snooze_count;
  out["max_snoozes"] = job.max_snoozes;
}

}  // namespace

boost::json::object BackoffToJson(const BackoffPolicy& backoff) {
  return {{"base_ms", backoff.base.count()},
          {"max_ms", backoff.max.count()},
          {"jitter_ms", backoff.jitter.count()}};
}

boost::json::value DeadReasonToJson(DeadReason reason) {
  if (reason == DeadReason::kNone) return nullptr;
  return boost::json::string(DeadReasonName(reason));
}

boost::json::object JobToJson(const Job& job, JobJsonOptions options) {
  boost::json::object out;
  AddIdentity(job, out);
  if (options.include_payload) {
    out["payload"] = EmbedJsonText(job.payload);
    out["result"] = job.result ? EmbedJsonText(*job.result) : boost::json::value(nullptr);
  }
  AddSettingsAndOutcome(job, out);
  // A callback URL may carry a token of the caller's: left out with the
  // payload (viewers).
  if (options.include_payload) out["completion_webhook"] = OptionalString(job.completion_webhook);
  AddTimes(job, out);
  AddLease(job, out);
  AddCounters(job, out);
  return out;
}

boost::json::object JobSummaryToJson(const Job& job) {
  boost::json::object out;
  AddIdentity(job, out);
  AddSettingsAndOutcome(job, out);
  out["attempt"] = job.retry_count;
  AddTimes(job, out);
  AddCounters(job, out);
  return out;
}

boost::json::object ClaimedJobToJson(const Job& job) {
  return {{"id", job.id},
          {"queue_name", job.queue_name},
          {"payload", EmbedJsonText(job.payload)},
          {"retry_count", job.retry_count},
          {"max_retries", job.max_retries},
          {"timeout_seconds", job.timeout_seconds},
          {"lease_id", OptionalString(job.lease_id)},
          {"lease_expires_at", TimeToJson(job.lease_expires_at)},
          {"priority", job.priority},
          {"tags", TagsToJson(job.tags)},
          {"attempts", job.attempts}};
}

boost::json::object JobStatusEntryToJson(const Job& job) {
  return {{"id", job.id},
          {"status", JobStatusName(job.status)},
          {"queue_name", job.queue_name},
          {"retry_count", job.retry_count},
          {"created_at", TimeToJson(job.created_at)},
          {"completed_at", TimeToJson(job.completed_at)}};
}

boost::json::object HistoryEntryToJson(const HistoryEntry& entry) {
  return {{"id", entry.id},
          {"job_id", entry.job_id},
          {"event_type", entry.event_type},
          {"worker_id", OptionalString(entry.worker_id)},
          {"details", EmbedJsonText(entry.details_json)},
          {"created_at", TimeToJson(entry.created_at)},
          {"node_id", OptionalString(entry.node_id)}};
}

boost::json::object DeadLetterGroupToJson(const DeadLetterGroup& group) {
  // first_seen/last_seen are the console's and the names of
  // oldest/newest_deadlettered_at, which stay for earlier clients.
  return {{"queue_name", group.queue_name},
          {"dead_reason", DeadReasonToJson(group.dead_reason)},
          {"fingerprint", OptionalString(group.fingerprint)},
          {"normalized_error", OptionalString(group.normalized_error)},
          {"error", OptionalString(group.error)},
          {"count", group.count},
          {"first_seen", TimeToJson(group.oldest_deadlettered_at)},
          {"last_seen", TimeToJson(group.newest_deadlettered_at)},
          {"oldest_deadlettered_at", TimeToJson(group.oldest_deadlettered_at)},
          {"newest_deadlettered_at", TimeToJson(group.newest_deadlettered_at)}};
}

}  // namespace redrive::wire
