#include "store/sqlite/job_sql.h"

#include <array>
#include <mutex>
#include <string>
#include <unordered_map>

namespace redrive::store::sqlite::sql {
namespace {

// The mutable columns, in parameter order ?1..?21.
constexpr const char* kMutableColumns[] = {
    "status",           "priority",           "retry_count",
    "max_retries",      "timeout_seconds",    "backoff_base_ms",
    "backoff_max_ms",   "backoff_jitter_ms",  "last_error",
    "dead_reason",      "updated_at",         "scheduled_at",
    "started_at",       "completed_at",       "expires_at",
    "deadlettered_at",  "assigned_worker_id", "lease_id",
    "lease_expires_at", "attempts",           "lease_expiries"};
constexpr uint32_t kUpdatedAtBit = 1u << 10;
constexpr char kUpdateJobGuard[] = " WHERE id = ?22 AND status = ?23 AND lease_id IS ?24";

// Appends "AND <tag condition>" for "key=value" (exact) or "key" (presence).
void AddTagFilter(BuiltQuery& q, std::string_view tag) {
  size_t eq = tag.find('=');
  if (eq == std::string_view::npos) {
    q.sql += " AND id IN (SELECT job_id FROM job_tags WHERE key = ?)";
    q.params.emplace_back(tag);
  } else {
    q.sql += " AND id IN (SELECT job_id FROM job_tags WHERE key = ? AND value = ?)";
    q.params.emplace_back(tag.substr(0, eq));
    q.params.emplace_back(tag.substr(eq + 1));
  }
}

void AddText(BuiltQuery& q, const char* condition, std::string_view value) {
  q.sql += condition;
  q.params.emplace_back(value);
}

// Appends "AND last_error starts with `prefix`": substr/length count
// characters on both sides, so the match is exact (no LIKE wildcards, no
// case folding) and a NULL last_error never matches.
void AddErrorPrefix(BuiltQuery& q, std::string_view prefix) {
  q.sql += " AND substr(last_error, 1, length(?)) = ?";
  q.params.emplace_back(prefix);
  q.params.emplace_back(prefix);
}

// The filters GET /jobs/dlq, its summary, redrive and purge share (status is
// 'deadletter'). `Filter` is a JobFilter or a DeadLetterSelection.
template <typename Filter>
void AddDeadLetterFilters(BuiltQuery& q, const Filter& f) {
  if (f.queue_name) AddText(q, " AND queue_name = ?", *f.queue_name);
  if (f.dead_reason) AddText(q, " AND dead_reason = ?", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  if (f.error_prefix) AddErrorPrefix(q, *f.error_prefix);
}

void AddLimitOffset(BuiltQuery& q, int limit, int offset) {
  q.sql += " LIMIT ? OFFSET ?";
  q.params.emplace_back(int64_t{limit});
  q.params.emplace_back(int64_t{offset});
}

}  // namespace

std::string_view UpdateJobSql(uint32_t changed) {
  const uint32_t key = (changed | kUpdatedAtBit) & kAllMutableColumns;
  // A handful of masks occur in practice (one per kind of transition); each
  // text is built once and stays valid for the life of the process.
  static std::mutex mu;
  static std::unordered_map<uint32_t, std::string> texts;
  std::lock_guard<std::mutex> lock(mu);
  auto [it, inserted] = texts.try_emplace(key);
  if (inserted) {
    std::string& sql = it->second;
    sql = "UPDATE jobs SET ";
    bool first = true;
    for (int i = 0; i < 21; ++i) {
      if (!(key & (1u << i))) continue;
      if (!first) sql += ", ";
      first = false;
      sql += kMutableColumns[i];
      sql += " = ?" + std::to_string(i + 1);
    }
    sql += kUpdateJobGuard;
  }
  return it->second;
}

BuiltQuery ListJobs(const JobFilter& f, bool with_payload) {
  BuiltQuery q;
  q.sql = with_payload ? "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE 1"
                       : "SELECT " REDRIVE_JOB_SUMMARY_COLUMNS " FROM jobs WHERE 1";
  if (f.queue_name) AddText(q, " AND queue_name = ?", *f.queue_name);
  if (f.status) AddText(q, " AND status = ?", JobStatusName(*f.status));
  if (f.dead_reason) AddText(q, " AND dead_reason = ?", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  if (f.error_prefix) AddErrorPrefix(q, *f.error_prefix);
  q.sql += " ORDER BY created_at DESC, id DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery ListDeadLetters(const JobFilter& f) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_SUMMARY_COLUMNS " FROM jobs WHERE status = 'deadletter'";
  AddDeadLetterFilters(q, f);
  q.sql += " ORDER BY deadlettered_at DESC, id DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery SummarizeDeadLetters(const JobFilter& f) {
  BuiltQuery q;
  q.sql = "SELECT queue_name, dead_reason, substr(last_error, 1, " +
          std::to_string(kDeadLetterErrorChars) +
          ") AS error, count(*) AS n, min(deadlettered_at), max(deadlettered_at)"
          " FROM jobs WHERE status = 'deadletter'";
  AddDeadLetterFilters(q, f);
  q.sql +=
      " GROUP BY queue_name, dead_reason, error ORDER BY n DESC, queue_name, dead_reason, error"
      " LIMIT ?";
  q.params.emplace_back(int64_t{f.limit});
  return q;
}

BuiltQuery SelectDeadLetters(const DeadLetterSelection& sel, const std::string& ids_json) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE status = 'deadletter'";
  if (!sel.job_ids.empty()) {
    AddText(q, " AND id IN (SELECT value FROM json_each(?))", ids_json);
  }
  AddDeadLetterFilters(q, sel);
  if (sel.dead_before) {
    q.sql += " AND deadlettered_at < ?";
    q.params.emplace_back(ToMicros(*sel.dead_before));
  }
  q.sql += " ORDER BY deadlettered_at, id LIMIT ?";
  q.params.emplace_back(int64_t{sel.limit});
  return q;
}

}  // namespace redrive::store::sqlite::sql
