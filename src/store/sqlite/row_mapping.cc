#include "store/sqlite/row_mapping.h"

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "store/sqlite/job_columns.h"

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

// The select lists of row_mapping.h follow kJobColumns: a column of jobs
// by name, or by its read_as; a column of job_payloads or job_leases by a
// key lookup (of a processing job's lease only), except that a summary has
// an empty value ('' or NULL) for the payloads.
consteval bool SelectItemMatches(std::string_view item, const JobColumn& column, bool summary) {
  const std::string_view name = column.name;
  std::string_view suffix;
  switch (column.kind) {
    case JobColumnKind::kFixed:
    case JobColumnKind::kUpdated:
      if (column.read_as != nullptr) return item == column.read_as;
      return item == name;
    case JobColumnKind::kPayloads:
      if (summary) return item == "''" || item == "NULL";
      suffix = " FROM job_payloads WHERE job_seq = jobs.seq)";
      break;
    case JobColumnKind::kLease: {
      constexpr std::string_view kWhen = "CASE WHEN status = 'processing' THEN ";
      constexpr std::string_view kEnd = " END";
      if (!item.starts_with(kWhen) || !item.ends_with(kEnd)) return false;
      item = item.substr(kWhen.size(), item.size() - kWhen.size() - kEnd.size());
      suffix = " FROM job_leases WHERE job_seq = jobs.seq)";
      break;
    }
  }
  constexpr std::string_view kPrefix = "(SELECT ";
  return item.size() == kPrefix.size() + name.size() + suffix.size() && item.starts_with(kPrefix) &&
         item.ends_with(suffix) && item.substr(kPrefix.size(), name.size()) == name;
}

consteval bool SelectListMatches(std::string_view list, bool summary) {
  int column = 0;
  int depth = 0;
  size_t start = 0;
  for (size_t pos = 0; pos <= list.size(); ++pos) {
    if (pos < list.size()) {
      if (list[pos] == '(') ++depth;
      if (list[pos] == ')') --depth;
      if (list[pos] != ',' || depth != 0) continue;
    }
    std::string_view item = list.substr(start, pos - start);
    while (item.starts_with(' ')) item.remove_prefix(1);
    while (item.ends_with(' ')) item.remove_suffix(1);
    if (column == kJobColumnCount || !SelectItemMatches(item, kJobColumns[column], summary)) {
      return false;
    }
    ++column;
    start = pos + 1;
  }
  return column == kJobColumnCount;
}

static_assert(SelectListMatches(REDRIVE_JOB_COLUMNS, false),
              "REDRIVE_JOB_COLUMNS must list kJobColumns in order");
static_assert(SelectListMatches(REDRIVE_JOB_SUMMARY_COLUMNS, true),
              "REDRIVE_JOB_SUMMARY_COLUMNS must list kJobColumns in order");
// ReadJob names the job in its errors, so it reads the id first.
static_assert(JobColumnIndex("id") == 0);

Status Corrupt(std::string_view job_id, std::string_view what) {
  return Status::Internal("job " + std::string(job_id) + ": stored " + std::string(what) +
                          " is not valid");
}

}  // namespace

Result<Job> ReadJob(const Statement& stmt, int first) {
  Job job;
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (!kJobColumns[i].read(stmt, first + i, job)) return Corrupt(job.id, kJobColumns[i].name);
  }
  return job;
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
  q.redrive_until = stmt.OptTime(14);
  q.crash_limit = stmt.Int(15);
  q.max_snoozes = stmt.Int(16);
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
  stmt.Bind(15, q.redrive_until);
  stmt.Bind(16, q.crash_limit);
  stmt.Bind(17, q.max_snoozes);
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
