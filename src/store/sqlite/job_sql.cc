#include "store/sqlite/job_sql.h"

#include <array>

namespace redrive::store::sqlite::sql {
namespace {

constexpr char kUpdateJobPrefix[] =
    "UPDATE jobs SET status = ?1, priority = ?2, retry_count = ?3, max_retries = ?4,"
    " timeout_seconds = ?5, backoff_base_ms = ?6, backoff_max_ms = ?7, backoff_jitter_ms = ?8,"
    " last_error = ?9, dead_reason = ?10, updated_at = ?11, scheduled_at = ?12,"
    " started_at = ?13, completed_at = ?14, expires_at = ?15, deadlettered_at = ?16,"
    " assigned_worker_id = ?17, lease_id = ?18, lease_expires_at = ?19, attempts = ?20,"
    " lease_expiries = ?21";
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

void AddLimitOffset(BuiltQuery& q, int limit, int offset) {
  q.sql += " LIMIT ? OFFSET ?";
  q.params.emplace_back(int64_t{limit});
  q.params.emplace_back(int64_t{offset});
}

}  // namespace

std::string_view UpdateJobSql(bool write_payload, bool write_result) {
  // Built once: the four variants are the keys of the statement cache.
  static const std::array<std::string, 4> kVariants = [] {
    std::array<std::string, 4> v;
    for (int i = 0; i < 4; ++i) {
      v[i] = kUpdateJobPrefix;
      if (i & 1) v[i] += ", payload = ?25";
      if (i & 2) v[i] += ", result = ?26";
      v[i] += kUpdateJobGuard;
    }
    return v;
  }();
  return kVariants[(write_payload ? 1 : 0) | (write_result ? 2 : 0)];
}

BuiltQuery ListJobs(const JobFilter& f, bool with_payload) {
  BuiltQuery q;
  q.sql = with_payload ? "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE 1"
                       : "SELECT " REDRIVE_JOB_SUMMARY_COLUMNS " FROM jobs WHERE 1";
  if (f.queue_name) AddText(q, " AND queue_name = ?", *f.queue_name);
  if (f.status) AddText(q, " AND status = ?", JobStatusName(*f.status));
  if (f.dead_reason) AddText(q, " AND dead_reason = ?", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  q.sql += " ORDER BY created_at DESC, id DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery ListDeadLetters(const JobFilter& f) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_SUMMARY_COLUMNS " FROM jobs WHERE status = 'deadletter'";
  if (f.queue_name) AddText(q, " AND queue_name = ?", *f.queue_name);
  if (f.dead_reason) AddText(q, " AND dead_reason = ?", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  q.sql += " ORDER BY deadlettered_at DESC, id DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery SelectDeadLetters(const DeadLetterSelection& sel, const std::string& ids_json) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE status = 'deadletter'";
  if (!sel.job_ids.empty()) {
    AddText(q, " AND id IN (SELECT value FROM json_each(?))", ids_json);
  }
  if (sel.queue_name) AddText(q, " AND queue_name = ?", *sel.queue_name);
  if (sel.dead_reason) AddText(q, " AND dead_reason = ?", DeadReasonName(*sel.dead_reason));
  if (sel.tag) AddTagFilter(q, *sel.tag);
  if (sel.dead_before) {
    q.sql += " AND deadlettered_at < ?";
    q.params.emplace_back(ToMicros(*sel.dead_before));
  }
  q.sql += " ORDER BY deadlettered_at, id LIMIT ?";
  q.params.emplace_back(int64_t{sel.limit});
  return q;
}

}  // namespace redrive::store::sqlite::sql
