#include "store/postgres/pg_row_mapping.h"

#include <chrono>

namespace redrive::store::postgres {
namespace {

std::optional<std::chrono::seconds> OptSeconds(const PgResult& r, int row, int col) {
  if (r.IsNull(row, col)) return std::nullopt;
  return std::chrono::seconds(r.Int64(row, col));
}

void AddOptSeconds(PgParams& p, const std::optional<std::chrono::seconds>& s) {
  if (s) {
    p.Add(static_cast<int64_t>(s->count()));
  } else {
    p.AddNull();
  }
}

}  // namespace

HistoryEntry ReadPgHistory(const PgResult& r, int row) {
  HistoryEntry h;
  h.id = r.String(row, 0);
  h.job_id = r.String(row, 1);
  h.event_type = r.String(row, 2);
  h.worker_id = r.OptString(row, 3);
  h.details_json = r.String(row, 4);
  h.created_at = r.Time(row, 5);
  h.node_id = r.OptString(row, 6);
  return h;
}

QueueConfig ReadPgQueue(const PgResult& r, int row) {
  QueueConfig q;
  q.queue_name = r.String(row, 0);
  q.max_retries = r.Int(row, 1);
  q.default_timeout = r.Int(row, 2);
  q.enabled = r.Bool(row, 3);
  q.paused = r.Bool(row, 4);
  q.paused_reason = r.OptString(row, 5);
  q.backoff.base = std::chrono::milliseconds(r.Int64(row, 6));
  q.backoff.max = std::chrono::milliseconds(r.Int64(row, 7));
  q.backoff.jitter = std::chrono::milliseconds(r.Int64(row, 8));
  q.retention.completed = OptSeconds(r, row, 9);
  q.retention.deadletter = OptSeconds(r, row, 10);
  q.retention.cancelled = OptSeconds(r, row, 11);
  q.created_at = r.Time(row, 12);
  q.updated_at = r.Time(row, 13);
  q.redrive_until = r.OptTime(row, 14);
  q.crash_limit = r.Int(row, 15);
  q.max_snoozes = r.Int(row, 16);
  return q;
}

void BindPgQueue(PgParams& p, const QueueConfig& q) {
  p.AddRef(q.queue_name);
  p.Add(q.max_retries);
  p.Add(q.default_timeout);
  p.Add(q.enabled);
  p.Add(q.paused);
  p.AddRef(q.paused_reason);
  p.Add(static_cast<int64_t>(q.backoff.base.count()));
  p.Add(static_cast<int64_t>(q.backoff.max.count()));
  p.Add(static_cast<int64_t>(q.backoff.jitter.count()));
  AddOptSeconds(p, q.retention.completed);
  AddOptSeconds(p, q.retention.deadletter);
  AddOptSeconds(p, q.retention.cancelled);
  p.Add(q.created_at);
  p.Add(q.updated_at);
  p.Add(q.redrive_until);
  p.Add(q.crash_limit);
  p.Add(q.max_snoozes);
}

WorkerInfo ReadPgWorker(const PgResult& r, int row) {
  WorkerInfo w;
  w.id = r.String(row, 0);
  w.queue_name = r.String(row, 1);
  w.hostname = r.String(row, 2);
  w.worker_type = r.OptString(row, 3);
  w.max_concurrency = r.Int(row, 4);
  w.metadata_json = r.String(row, 5);
  w.version = r.OptString(row, 6);
  w.status = r.String(row, 7);
  w.current_jobs = r.Int(row, 8);
  w.registered_at = r.Time(row, 9);
  w.last_heartbeat_at = r.Time(row, 10);
  w.deregistered_at = r.OptTime(row, 11);
  return w;
}

void BindPgWorker(PgParams& p, const WorkerInfo& w) {
  p.AddRef(w.id);
  p.AddRef(w.queue_name);
  p.AddRef(w.hostname);
  p.AddRef(w.worker_type);
  p.Add(w.max_concurrency);
  p.AddRef(w.metadata_json);
  p.AddRef(w.version);
  p.AddRef(w.status);
  p.Add(w.current_jobs);
  p.Add(w.registered_at);
  p.Add(w.last_heartbeat_at);
  p.Add(w.deregistered_at);
}

}  // namespace redrive::store::postgres
