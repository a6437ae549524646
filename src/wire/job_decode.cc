#include "wire/job_decode.h"

#include "wire/json_read.h"
#include "wire/json_text.h"

namespace redrive::wire {
namespace {

Result<const boost::json::object*> ObjectWithId(const boost::json::value& v, const char* what) {
  const auto* o = v.if_object();
  if (!o || !ReadString(*o, "id")) {
    return Status::Internal(std::string("malformed ") + what + " in the server's answer");
  }
  return o;
}

std::optional<std::string> ReadJsonText(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  return SerializeJson(*v);
}

}  // namespace

BackoffPolicy BackoffFromJson(const boost::json::object& o) {
  BackoffPolicy b;
  b.base = std::chrono::milliseconds(ReadIntOr(o, "base_ms", b.base.count()));
  b.max = std::chrono::milliseconds(ReadIntOr(o, "max_ms", b.max.count()));
  b.jitter = std::chrono::milliseconds(ReadIntOr(o, "jitter_ms", b.jitter.count()));
  return b;
}

Result<Job> JobFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* o, ObjectWithId(v, "job"));
  Job job;
  job.id = ReadStringOr(*o, "id");
  job.queue_name = ReadStringOr(*o, "queue_name");
  job.status = ParseJobStatus(ReadStringOr(*o, "status")).value_or(JobStatus::kPending);
  job.payload = ReadJsonText(*o, "payload").value_or("null");
  job.result = ReadJsonText(*o, "result");
  job.priority = static_cast<int>(ReadIntOr(*o, "priority", 0));
  job.retry_count = static_cast<int>(ReadIntOr(*o, "retry_count", 0));
  job.max_retries = static_cast<int>(ReadIntOr(*o, "max_retries", job.max_retries));
  job.timeout_seconds = static_cast<int>(ReadIntOr(*o, "timeout_seconds", job.timeout_seconds));
  if (const auto* b = ReadObject(*o, "backoff")) job.backoff = BackoffFromJson(*b);
  job.last_error = ReadString(*o, "last_error");
  job.error_fingerprint = ReadString(*o, "error_fingerprint");
  if (auto r = ReadString(*o, "dead_reason")) {
    job.dead_reason = ParseDeadReason(*r).value_or(DeadReason::kNone);
  }
  job.tags = ReadTags(*o, "tags");
  job.idempotency_key = ReadString(*o, "idempotency_key");
  job.completion_webhook = ReadString(*o, "completion_webhook");
  job.created_at = ReadTime(*o, "created_at").value_or(Instant{});
  job.updated_at = ReadTime(*o, "updated_at").value_or(Instant{});
  job.scheduled_at = ReadTime(*o, "scheduled_at").value_or(Instant{});
  job.started_at = ReadTime(*o, "started_at");
  job.completed_at = ReadTime(*o, "completed_at");
  job.expires_at = ReadTime(*o, "expires_at");
  job.deadlettered_at = ReadTime(*o, "deadlettered_at");
  job.assigned_worker_id = ReadString(*o, "assigned_worker_id");
  job.lease_id = ReadString(*o, "lease_id");
  job.lease_expires_at = ReadTime(*o, "lease_expires_at");
  job.attempts = static_cast<int>(ReadIntOr(*o, "attempts", 0));
  job.lease_expiries = static_cast<int>(ReadIntOr(*o, "lease_expiries", 0));
  job.crash_count = static_cast<int>(ReadIntOr(*o, "crash_count", 0));
  job.crash_limit = static_cast<int>(ReadIntOr(*o, "crash_limit", job.crash_limit));
  job.snooze_count = static_cast<int>(ReadIntOr(*o, "snooze_count", 0));
  job.max_snoozes = static_cast<int>(ReadIntOr(*o, "max_snoozes", job.max_snoozes));
  return job;
}

Result<HistoryEntry> HistoryEntryFromJson(const boost::json::value& v) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* o, ObjectWithId(v, "history entry"));
  HistoryEntry e;
  e.id = ReadStringOr(*o, "id");
  e.job_id = ReadStringOr(*o, "job_id");
  e.event_type = ReadStringOr(*o, "event_type");
  e.worker_id = ReadString(*o, "worker_id");
  e.details_json = ReadJsonText(*o, "details").value_or("{}");
  e.created_at = ReadTime(*o, "created_at").value_or(Instant{});
  e.node_id = ReadString(*o, "node_id");
  return e;
}

Result<DeadLetterGroup> DeadLetterGroupFromJson(const boost::json::value& v) {
  const auto* o = v.if_object();
  if (!o || !ReadString(*o, "queue_name")) {
    return Status::Internal("malformed DLQ summary group in the server's answer");
  }
  DeadLetterGroup g;
  g.queue_name = ReadStringOr(*o, "queue_name");
  g.dead_reason = ParseDeadReason(ReadStringOr(*o, "dead_reason")).value_or(DeadReason::kNone);
  g.fingerprint = ReadString(*o, "fingerprint");
  g.normalized_error = ReadString(*o, "normalized_error");
  g.error = ReadString(*o, "error");
  g.count = ReadIntOr(*o, "count", 0);
  g.oldest_deadlettered_at = ReadTime(*o, "oldest_deadlettered_at").value_or(Instant{});
  g.newest_deadlettered_at = ReadTime(*o, "newest_deadlettered_at").value_or(Instant{});
  return g;
}

}  // namespace redrive::wire
