#include "store/sqlite/row_mapping.h"

#include <chrono>
#include <string>

#include "store/sqlite/tags_json.h"

namespace redrive::store::sqlite {
namespace {

std::optional<std::chrono::seconds> OptSeconds(const Statement& stmt, int col) {
  if (stmt.IsNull(col)) return std::nullopt;
  return std::chrono::seconds(stmt.Int64(col));
}

void BindOptSeconds(Statement& stmt, int index, const std::optional<std::chrono::seconds>& s) {
  if (s) {
    stmt.Bind(index, static_cast<int64_t>(s->count()));
  } else {
    stmt.BindNull(index);
  }
}

Status Corrupt(std::string_view job_id, std::string_view what) {
  return Status::Internal("job " + std::string(job_id) + ": stored " + std::string(what) +
                          " is not valid");
}

}  // namespace

Result<Job> ReadJob(const Statement& stmt, int first) {
  int c = first;
  Job job;
  job.id = stmt.String(c++);
  job.queue_name = stmt.String(c++);
  std::optional<JobStatus> status = ParseJobStatus(stmt.Text(c++));
  if (!status) return Corrupt(job.id, "status");
  job.status = *status;
  job.payload = stmt.String(c++);
  job.result = stmt.OptString(c++);
  job.priority = stmt.Int(c++);
  job.retry_count = stmt.Int(c++);
  job.max_retries = stmt.Int(c++);
  job.timeout_seconds = stmt.Int(c++);
  job.backoff.base = std::chrono::milliseconds(stmt.Int64(c++));
  job.backoff.max = std::chrono::milliseconds(stmt.Int64(c++));
  job.backoff.jitter = std::chrono::milliseconds(stmt.Int64(c++));
  job.last_error = stmt.OptString(c++);
  if (!stmt.IsNull(c)) {
    std::optional<DeadReason> reason = ParseDeadReason(stmt.Text(c));
    if (!reason) return Corrupt(job.id, "dead_reason");
    job.dead_reason = *reason;
  }
  ++c;
  std::optional<Tags> tags = DecodeTagsJson(stmt.Text(c++));
  if (!tags) return Corrupt(job.id, "tags");
  job.tags = std::move(*tags);
  job.idempotency_key = stmt.OptString(c++);
  job.created_at = stmt.Time(c++);
  job.updated_at = stmt.Time(c++);
  job.scheduled_at = stmt.Time(c++);
  job.started_at = stmt.OptTime(c++);
  job.completed_at = stmt.OptTime(c++);
  job.expires_at = stmt.OptTime(c++);
  job.deadlettered_at = stmt.OptTime(c++);
  job.assigned_worker_id = stmt.OptString(c++);
  job.lease_id = stmt.OptString(c++);
  job.lease_expires_at = stmt.OptTime(c++);
  job.attempts = stmt.Int(c++);
  job.lease_expiries = stmt.Int(c++);
  return job;
}

int BindJobSettings(Statement& stmt, const Job& job, int i) {
  stmt.Bind(i++, job.priority);
  stmt.Bind(i++, job.retry_count);
  stmt.Bind(i++, job.max_retries);
  stmt.Bind(i++, job.timeout_seconds);
  stmt.Bind(i++, static_cast<int64_t>(job.backoff.base.count()));
  stmt.Bind(i++, static_cast<int64_t>(job.backoff.max.count()));
  stmt.Bind(i++, static_cast<int64_t>(job.backoff.jitter.count()));
  stmt.Bind(i++, job.last_error);
  if (job.dead_reason == DeadReason::kNone) {
    stmt.BindNull(i++);
  } else {
    stmt.Bind(i++, DeadReasonName(job.dead_reason));
  }
  return i;
}

int BindJobTimesAndLease(Statement& stmt, const Job& job, int i) {
  stmt.Bind(i++, job.updated_at);
  stmt.Bind(i++, job.scheduled_at);
  stmt.Bind(i++, job.started_at);
  stmt.Bind(i++, job.completed_at);
  stmt.Bind(i++, job.expires_at);
  stmt.Bind(i++, job.deadlettered_at);
  stmt.Bind(i++, job.assigned_worker_id);
  stmt.Bind(i++, job.lease_id);
  stmt.Bind(i++, job.lease_expires_at);
  stmt.Bind(i++, job.attempts);
  stmt.Bind(i++, job.lease_expiries);
  return i;
}

void BindJob(Statement& stmt, const Job& job, const std::string& tags_json) {
  int i = 1;
  stmt.Bind(i++, job.id);
  stmt.Bind(i++, job.queue_name);
  stmt.Bind(i++, JobStatusName(job.status));
  stmt.Bind(i++, job.payload);
  stmt.Bind(i++, job.result);
  i = BindJobSettings(stmt, job, i);
  stmt.Bind(i++, tags_json);
  stmt.Bind(i++, job.idempotency_key);
  stmt.Bind(i++, job.created_at);
  BindJobTimesAndLease(stmt, job, i);
}

HistoryEntry ReadHistory(const Statement& stmt) {
  HistoryEntry h;
  h.id = stmt.String(0);
  h.job_id = stmt.String(1);
  h.event_type = stmt.String(2);
  h.worker_id = stmt.OptString(3);
  h.details_json = stmt.String(4);
  h.created_at = stmt.Time(5);
  return h;
}

QueueConfig ReadQueue(const Statement& stmt) {
  QueueConfig q;
  q.queue_name = stmt.String(0);
  q.max_retries = stmt.Int(1);
  q.default_timeout = stmt.Int(2);
  q.enabled = stmt.Int(3) != 0;
  q.paused = stmt.Int(4) != 0;
  q.paused_reason = stmt.OptString(5);
  q.backoff.base = std::chrono::milliseconds(stmt.Int64(6));
  q.backoff.max = std::chrono::milliseconds(stmt.Int64(7));
  q.backoff.jitter = std::chrono::milliseconds(stmt.Int64(8));
  q.retention.completed = OptSeconds(stmt, 9);
  q.retention.deadletter = OptSeconds(stmt, 10);
  q.retention.cancelled = OptSeconds(stmt, 11);
  q.created_at = stmt.Time(12);
  q.updated_at = stmt.Time(13);
  return q;
}

void BindQueue(Statement& stmt, const QueueConfig& q) {
  stmt.Bind(1, q.queue_name);
  stmt.Bind(2, q.max_retries);
  stmt.Bind(3, q.default_timeout);
  stmt.Bind(4, q.enabled ? 1 : 0);
  stmt.Bind(5, q.paused ? 1 : 0);
  stmt.Bind(6, q.paused_reason);
  stmt.Bind(7, static_cast<int64_t>(q.backoff.base.count()));
  stmt.Bind(8, static_cast<int64_t>(q.backoff.max.count()));
  stmt.Bind(9, static_cast<int64_t>(q.backoff.jitter.count()));
  BindOptSeconds(stmt, 10, q.retention.completed);
  BindOptSeconds(stmt, 11, q.retention.deadletter);
  BindOptSeconds(stmt, 12, q.retention.cancelled);
  stmt.Bind(13, q.created_at);
  stmt.Bind(14, q.updated_at);
}

WorkerInfo ReadWorker(const Statement& stmt) {
  WorkerInfo w;
  w.id = stmt.String(0);
  w.queue_name = stmt.String(1);
  w.hostname = stmt.String(2);
  w.worker_type = stmt.OptString(3);
  w.max_concurrency = stmt.Int(4);
  w.metadata_json = stmt.String(5);
  w.version = stmt.OptString(6);
  w.status = stmt.String(7);
  w.current_jobs = stmt.Int(8);
  w.registered_at = stmt.Time(9);
  w.last_heartbeat_at = stmt.Time(10);
  w.deregistered_at = stmt.OptTime(11);
  return w;
}

void BindWorker(Statement& stmt, const WorkerInfo& w) {
  stmt.Bind(1, w.id);
  stmt.Bind(2, w.queue_name);
  stmt.Bind(3, w.hostname);
  stmt.Bind(4, w.worker_type);
  stmt.Bind(5, w.max_concurrency);
  stmt.Bind(6, w.metadata_json);
  stmt.Bind(7, w.version);
  stmt.Bind(8, w.status);
  stmt.Bind(9, w.current_jobs);
  stmt.Bind(10, w.registered_at);
  stmt.Bind(11, w.last_heartbeat_at);
  stmt.Bind(12, w.deregistered_at);
}

}  // namespace redrive::store::sqlite
