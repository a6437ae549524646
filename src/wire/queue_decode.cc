#include "wire/queue_decode.h"

#include "wire/job_decode.h"
#include "wire/json_read.h"
#include "wire/json_text.h"

namespace redrive::wire {
namespace {

// A retention member: a number of seconds, or null/absent for "forever".
std::optional<std::chrono::seconds> ReadRetention(const boost::json::object& o,
                                                  std::string_view key) {
  auto s = ReadInt(o, key);
  if (!s) return std::nullopt;
  return std::chrono::seconds(*s);
}

}  // namespace

Result<QueueConfig> QueueConfigFromJson(const boost::json::value& v) {
  const auto* o = v.if_object();
  if (!o || !ReadString(*o, "queue_name")) {
    return Status::Internal("malformed queue in the server's answer");
  }
  QueueConfig c;
  c.queue_name = ReadStringOr(*o, "queue_name");
  c.max_retries = static_cast<int>(ReadIntOr(*o, "max_retries", c.max_retries));
  c.default_timeout = static_cast<int>(ReadIntOr(*o, "default_timeout", c.default_timeout));
  c.enabled = ReadBoolOr(*o, "enabled", true);
  c.paused = ReadBoolOr(*o, "paused", false);
  c.paused_reason = ReadString(*o, "paused_reason");
  if (const auto* b = ReadObject(*o, "backoff")) c.backoff = BackoffFromJson(*b);
  c.crash_limit = static_cast<int>(ReadIntOr(*o, "crash_limit", c.crash_limit));
  c.max_snoozes = static_cast<int>(ReadIntOr(*o, "max_snoozes", c.max_snoozes));
  if (const auto* r = ReadObject(*o, "retention")) {
    c.retention.completed = ReadRetention(*r, "completed_seconds");
    c.retention.deadletter = ReadRetention(*r, "deadletter_seconds");
    c.retention.cancelled = ReadRetention(*r, "cancelled_seconds");
  }
  c.created_at = ReadTime(*o, "created_at").value_or(Instant{});
  c.updated_at = ReadTime(*o, "updated_at").value_or(Instant{});
  return c;
}

StatusCounts StatusCountsFromJson(const boost::json::object& o) {
  StatusCounts c;
  c.pending = ReadIntOr(o, "pending", 0);
  c.scheduled = ReadIntOr(o, "scheduled", 0);
  c.processing = ReadIntOr(o, "processing", 0);
  c.completed = ReadIntOr(o, "completed", 0);
  c.deadletter = ReadIntOr(o, "deadletter", 0);
  c.cancelled = ReadIntOr(o, "cancelled", 0);
  c.quarantined = ReadIntOr(o, "quarantined", 0);
  c.blocked = ReadIntOr(o, "blocked", 0);
  return c;
}

Result<WorkerInfo> WorkerFromJson(const boost::json::value& v) {
  const auto* o = v.if_object();
  if (!o || !ReadString(*o, "id"))
    return Status::Internal("malformed worker in the server's answer");
  WorkerInfo w;
  w.id = ReadStringOr(*o, "id");
  w.queue_name = ReadStringOr(*o, "queue_name");
  w.hostname = ReadStringOr(*o, "hostname");
  w.worker_type = ReadString(*o, "worker_type");
  w.max_concurrency = static_cast<int>(ReadIntOr(*o, "max_concurrency", 1));
  if (const auto* m = o->if_contains("metadata"); m && !m->is_null()) {
    w.metadata_json = SerializeJson(*m);
  }
  w.version = ReadString(*o, "version");
  w.status = ReadStringOr(*o, "status", w.status);
  w.current_jobs = static_cast<int>(ReadIntOr(*o, "current_jobs", 0));
  w.registered_at = ReadTime(*o, "registered_at").value_or(Instant{});
  auto hb = ReadTime(*o, "last_heartbeat_at");
  if (!hb) hb = ReadTime(*o, "last_heartbeat");
  w.last_heartbeat_at = hb.value_or(Instant{});
  w.deregistered_at = ReadTime(*o, "deregistered_at");
  return w;
}

}  // namespace redrive::wire
