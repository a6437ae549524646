#include "sdk/request_encoding.h"

#include <boost/json/array.hpp>

#include "core/time_format.h"
#include "wire/job_json.h"

namespace redrive::sdk {
namespace {

template <typename T>
void Put(boost::json::object& o, const char* key, const std::optional<T>& v) {
  if (v) o[key] = *v;
}

void PutTime(boost::json::object& o, const char* key, const std::optional<Instant>& t) {
  if (t) o[key] = FormatTime(*t);
}

void PutTags(boost::json::object& o, const Tags& tags) {
  if (tags.empty()) return;
  boost::json::object t;
  for (const auto& [k, v] : tags) t[k] = v;
  o["tags"] = std::move(t);
}

// The fields an enqueue, a bulk item and a workflow's job share.
template <typename J>
void PutSharedJobFields(boost::json::object& o, const J& job) {
  o["payload"] = job.payload;
  Put(o, "priority", job.priority);
  Put(o, "max_retries", job.max_retries);
  Put(o, "timeout_seconds", job.timeout_seconds);
  PutTime(o, "scheduled_at", job.scheduled_at);
  PutTime(o, "expires_at", job.expires_at);
  PutTags(o, job.tags);
  if (job.backoff) o["backoff"] = wire::BackoffToJson(*job.backoff);
  Put(o, "crash_limit", job.crash_limit);
  Put(o, "max_snoozes", job.max_snoozes);
  Put(o, "completion_webhook", job.completion_webhook);
}

// The fields an enqueue and a bulk item share (a workflow is created once,
// whole: its jobs take no idempotency key).
template <typename J>
void PutJobFields(boost::json::object& o, const J& job) {
  PutSharedJobFields(o, job);
  Put(o, "idempotency_key", job.idempotency_key);
}

boost::json::array StringArray(const std::vector<std::string>& items) {
  boost::json::array out;
  for (const std::string& s : items) out.push_back(boost::json::string(s));
  return out;
}

boost::json::value RetentionValue(const std::optional<std::chrono::seconds>& s) {
  if (!s) return nullptr;
  return s->count();
}

}  // namespace

boost::json::object EnqueueToJson(const EnqueueRequest& request) {
  boost::json::object o;
  o["queue_name"] = request.queue_name;
  PutJobFields(o, request);
  Put(o, "parent_job_id", request.parent_job_id);
  return o;
}

boost::json::object BulkEnqueueToJson(const BulkEnqueueRequest& request) {
  boost::json::object o;
  o["queue_name"] = request.queue_name;
  boost::json::array jobs;
  for (const BulkJob& job : request.jobs) {
    boost::json::object item;
    PutJobFields(item, job);
    jobs.push_back(std::move(item));
  }
  o["jobs"] = std::move(jobs);
  Put(o, "default_priority", request.default_priority);
  Put(o, "default_max_retries", request.default_max_retries);
  Put(o, "default_timeout_seconds", request.default_timeout_seconds);
  return o;
}

boost::json::object AckToJson(const Ack& ack) {
  boost::json::object o{{"id", ack.id}, {"lease_id", ack.lease_id}};
  if (ack.error) {
    o["error"] = *ack.error;
    if (ack.no_retry) o["no_retry"] = true;
    if (ack.retry_after) o["retry_after_ms"] = ack.retry_after->count();
    if (ack.details) o["details"] = *ack.details;
  } else if (ack.result) {
    o["result"] = *ack.result;
  }
  return o;
}

boost::json::object ClaimToJson(const ClaimRequest& request) {
  boost::json::object o{{"queue_name", request.queue_name}, {"worker_id", request.worker_id}};
  Put(o, "limit", request.limit);
  Put(o, "lease_duration_secs", request.lease_duration_secs);
  if (request.wait) o["wait_ms"] = request.wait->count();
  if (request.acks) {
    boost::json::array acks;
    for (const Ack& a : *request.acks) acks.push_back(AckToJson(a));
    o["acks"] = std::move(acks);
  }
  return o;
}

boost::json::object FailToJson(const std::string& worker_id, const std::string& lease_id,
                               const std::string& error, const FailOptions& options) {
  boost::json::object o{{"worker_id", worker_id}, {"lease_id", lease_id}, {"error", error}};
  if (options.no_retry) o["no_retry"] = true;
  if (options.retry_after) o["retry_after_ms"] = options.retry_after->count();
  if (options.details) o["details"] = *options.details;
  return o;
}

boost::json::object DlqRetryToJson(const DlqRetryRequest& request) {
  boost::json::object o;
  if (!request.job_ids.empty()) {
    boost::json::array ids;
    for (const auto& id : request.job_ids) ids.push_back(boost::json::string(id));
    o["job_ids"] = std::move(ids);
  }
  Put(o, "queue_name", request.queue_name);
  if (request.dead_reason) o["dead_reason"] = DeadReasonName(*request.dead_reason);
  Put(o, "tag", request.tag);
  Put(o, "error_prefix", request.error_prefix);
  Put(o, "fingerprint", request.fingerprint);
  Put(o, "limit", request.limit);
  if (request.dry_run) o["dry_run"] = true;
  Put(o, "rate_per_second", request.rate_per_second);
  Put(o, "budget", request.budget);
  Put(o, "target_queue", request.target_queue);
  return o;
}

boost::json::object ReleaseToJson(const ReleaseRequest& request) {
  boost::json::object o;
  if (!request.job_ids.empty()) {
    boost::json::array ids;
    for (const auto& id : request.job_ids) ids.push_back(boost::json::string(id));
    o["job_ids"] = std::move(ids);
  }
  Put(o, "queue_name", request.queue_name);
  Put(o, "tag", request.tag);
  Put(o, "fingerprint", request.fingerprint);
  Put(o, "limit", request.limit);
  if (request.dry_run) o["dry_run"] = true;
  Put(o, "budget", request.budget);
  Put(o, "target_queue", request.target_queue);
  return o;
}

boost::json::object DlqPurgeToJson(const DlqPurgeRequest& request) {
  boost::json::object o{{"confirm", request.confirm}};
  Put(o, "queue_name", request.queue_name);
  if (request.dead_reason) o["dead_reason"] = DeadReasonName(*request.dead_reason);
  Put(o, "tag", request.tag);
  Put(o, "error_prefix", request.error_prefix);
  Put(o, "fingerprint", request.fingerprint);
  PutTime(o, "older_than", request.older_than);
  Put(o, "limit", request.limit);
  if (request.dry_run) o["dry_run"] = true;
  return o;
}

boost::json::object QueueConfigUpdateToJson(const QueueConfigUpdate& update) {
  boost::json::object o;
  Put(o, "max_retries", update.max_retries);
  Put(o, "default_timeout", update.default_timeout);
  Put(o, "enabled", update.enabled);
  if (update.backoff) o["backoff"] = wire::BackoffToJson(*update.backoff);
  Put(o, "crash_limit", update.crash_limit);
  Put(o, "max_snoozes", update.max_snoozes);
  boost::json::object retention;
  if (update.retention_completed) {
    retention["completed_seconds"] = RetentionValue(*update.retention_completed);
  }
  if (update.retention_deadletter) {
    retention["deadletter_seconds"] = RetentionValue(*update.retention_deadletter);
  }
  if (update.retention_cancelled) {
    retention["cancelled_seconds"] = RetentionValue(*update.retention_cancelled);
  }
  if (!retention.empty()) o["retention"] = std::move(retention);
  return o;
}

boost::json::object RegisterWorkerToJson(const RegisterWorkerRequest& request) {
  boost::json::object o{{"queue_name", request.queue_name}, {"hostname", request.hostname}};
  Put(o, "worker_type", request.worker_type);
  Put(o, "max_concurrency", request.max_concurrency);
  Put(o, "metadata", request.metadata);
  Put(o, "version", request.version);
  Put(o, "worker_id", request.worker_id);
  return o;
}

boost::json::object WorkerHeartbeatToJson(const WorkerHeartbeatRequest& request) {
  boost::json::object o{{"current_jobs", request.current_jobs}};
  Put(o, "status", request.status);
  Put(o, "metadata", request.metadata);
  return o;
}

boost::json::object CreateWorkflowToJson(const CreateWorkflowRequest& request) {
  boost::json::object o{{"name", request.name}};
  Put(o, "description", request.description);
  Put(o, "metadata", request.metadata);
  boost::json::array jobs;
  for (const WorkflowJobRequest& job : request.jobs) {
    boost::json::object item{{"key", job.key}, {"queue_name", job.queue_name}};
    PutSharedJobFields(item, job);
    if (!job.depends_on.empty()) item["depends_on"] = StringArray(job.depends_on);
    if (job.dependency_mode) item["dependency_mode"] = DependencyModeName(*job.dependency_mode);
    jobs.push_back(std::move(item));
  }
  o["jobs"] = std::move(jobs);
  return o;
}

boost::json::object AddDependenciesToJson(const std::vector<std::string>& depends_on,
                                          std::optional<DependencyMode> mode) {
  boost::json::object o{{"depends_on_job_ids", StringArray(depends_on)}};
  if (mode) o["dependency_mode"] = DependencyModeName(*mode);
  return o;
}

}  // namespace redrive::sdk
