#include "store/sqlite/job_sql.h"

#include <bit>
#include <string>

#include "core/text_cache.h"

namespace redrive::store::sqlite::sql {
namespace {

constexpr JobColumnSet kUpdatedAt = ColumnBit(JobColumnIndex("updated_at"));
static_assert((kUpdatedAt & kUpdatedColumns) != 0, "updated_at is an updated column");

// "?n" for the place of each column of `bound` in table order: how
// BindColumns numbers them, in the column's stored form (JobColumn::write).
std::string Param(JobColumnSet bound, int column) {
  const JobColumnSet before = bound & (ColumnBit(column) - 1);
  // Appended, not "?" + ...: GCC 12 at -O3 reports a false -Wrestrict there.
  std::string param = "?";
  param.append(std::to_string(std::popcount(before) + 1));
  if (const char* write = kJobColumns[column].write) {
    const std::string_view form = write;
    const size_t at = form.find('?');
    return std::string(form.substr(0, at)) + param + std::string(form.substr(at + 1));
  }
  return param;
}

// "INSERT INTO <table> (<columns>) VALUES (?1, ...)" for `columns` (as
// BindColumns binds them), then `extra_name` as the last parameter if set.
std::string BuildInsert(const char* table, JobColumnSet columns, const char* extra_name) {
  std::string names;
  std::string params;
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (!(columns & ColumnBit(i))) continue;
    if (!names.empty()) {
      names += ", ";
      params += ", ";
    }
    names += kJobColumns[i].name;
    params += Param(columns, i);
  }
  if (extra_name != nullptr) {
    names += std::string(", ") + extra_name;
    params += ", ?" + std::to_string(std::popcount(columns) + 1);
  }
  return std::string("INSERT INTO ") + table + " (" + names + ") VALUES (" + params + ")";
}

// "UPDATE <table> SET <column> = ?n, ... <where>" assigning the columns of
// `assigned`, numbered by their place in `bound`.
std::string BuildUpdate(const char* table, JobColumnSet assigned, JobColumnSet bound,
                        std::string_view where) {
  std::string sql = std::string("UPDATE ") + table + " SET ";
  bool first = true;
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (!(assigned & ColumnBit(i))) continue;
    if (!first) sql += ", ";
    first = false;
    sql += kJobColumns[i].name;
    sql += " = " + Param(bound, i);
  }
  sql += where;
  return sql;
}

// The text for `key`, built by `build` the first time (core/text_cache.h).
// Keys of the jobs, job_payloads and job_leases updates never collide: their
// columns are disjoint.
std::string_view CachedText(JobColumnSet key, std::string (*build)(JobColumnSet)) {
  static TextCache<JobColumnSet>& texts = TextCache<JobColumnSet>::Lasting();
  return texts.Get(key, [&] { return build(key); });
}

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

// " FROM jobs WHERE status = 'deadletter'" for the filters `f`. One class of
// one queue names its index: without statistics SQLite costs it the same as
// jobs_listing's (queue_name, status), which would read every dead job of
// the queue to find the class's.
template <typename Filter>
const char* DeadJobsWhere(const Filter& f) {
  return f.queue_name && f.fingerprint
             ? " FROM jobs INDEXED BY jobs_dlq_fingerprint WHERE status = 'deadletter'"
             : " FROM jobs WHERE status = 'deadletter'";
}

// The filters GET /jobs/dlq, its summary, redrive and purge share (status is
// 'deadletter'). `Filter` is a JobFilter or a DeadLetterSelection.
template <typename Filter>
void AddDeadLetterFilters(BuiltQuery& q, const Filter& f) {
  if (f.queue_name) AddText(q, " AND queue_id = " REDRIVE_QUEUE_ID("?"), *f.queue_name);
  if (f.dead_reason) AddText(q, " AND dead_reason = ?", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  if (f.error_prefix) AddErrorPrefix(q, *f.error_prefix);
  if (f.fingerprint) AddText(q, " AND error_fingerprint = ?", *f.fingerprint);
}

void AddLimitOffset(BuiltQuery& q, int limit, int offset) {
  q.sql += " LIMIT ? OFFSET ?";
  q.params.emplace_back(int64_t{limit});
  q.params.emplace_back(int64_t{offset});
}

}  // namespace

std::string_view InsertJobSql() {
  static const std::string* const text =
      new std::string(BuildInsert("jobs", kJobsTableColumns, nullptr));
  return *text;
}

std::string_view InsertPayloadsSql() {
  static const std::string* const text =
      new std::string(BuildInsert("job_payloads", kPayloadsColumns, "job_seq"));
  return *text;
}

std::string_view InsertLeaseSql() {
  static const std::string* const text =
      new std::string(BuildInsert("job_leases", kLeaseColumns, "job_seq"));
  return *text;
}

std::string_view UpdateJobSql(JobColumnSet changed) {
  return CachedText((changed | kUpdatedAt) & kUpdatedColumns, [](JobColumnSet assigned) {
    const std::string lease = std::to_string(kGuardLeaseIdParam);
    return BuildUpdate("jobs", assigned, kUpdatedColumns,
                       " WHERE seq = ?" + std::to_string(kGuardSeqParam) + " AND status = ?" +
                           std::to_string(kGuardStatusParam) + " AND (?" + lease + " IS NULL OR" +
                           " (SELECT lease_id FROM job_leases WHERE job_seq = jobs.seq) = ?" +
                           lease + ")");
  });
}

std::string_view UpdateLeaseSql(JobColumnSet changed) {
  return CachedText(changed & kLeaseColumns, [](JobColumnSet assigned) {
    return BuildUpdate("job_leases", assigned, kLeaseColumns,
                       " WHERE job_seq = ?" + std::to_string(kLeaseJobSeqParam));
  });
}

std::string_view UpdatePayloadsSql(JobColumnSet changed) {
  return CachedText(changed & kPayloadsColumns, [](JobColumnSet assigned) {
    return BuildUpdate("job_payloads", assigned, kPayloadsColumns,
                       " WHERE job_seq = ?" + std::to_string(kPayloadsJobSeqParam));
  });
}

BuiltQuery ListJobs(const JobFilter& f, bool with_payload) {
  BuiltQuery q;
  q.sql = with_payload ? "SELECT " REDRIVE_JOB_COLUMNS " FROM jobs WHERE 1"
                       : "SELECT " REDRIVE_JOB_SUMMARY_COLUMNS " FROM jobs WHERE 1";
  if (f.queue_name) AddText(q, " AND queue_id = " REDRIVE_QUEUE_ID("?"), *f.queue_name);
  if (f.status) AddText(q, " AND status = ?", JobStatusName(*f.status));
  if (f.dead_reason) AddText(q, " AND dead_reason = ?", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  if (f.error_prefix) AddErrorPrefix(q, *f.error_prefix);
  if (f.fingerprint) AddText(q, " AND error_fingerprint = ?", *f.fingerprint);
  // Ties (the jobs one request created) newest first too: seq, the order
  // they were inserted in, which their ids follow (core/ids.h) and which the
  // listing indexes hold after created_at (compact_schema.cc, version 25).
  q.sql += " ORDER BY created_at DESC, seq DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery ListDeadLetters(const JobFilter& f) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_SUMMARY_COLUMNS;
  q.sql += DeadJobsWhere(f);
  AddDeadLetterFilters(q, f);
  q.sql += " ORDER BY deadlettered_at DESC, id DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery SummarizeDeadLetters(const JobFilter& f) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_QUEUE
          " AS queue, dead_reason, error_fingerprint,"
          " substr(min(last_error), 1, " +
          std::to_string(kDeadLetterErrorChars) +
          "), count(*) AS n, min(deadlettered_at), max(deadlettered_at)";
  q.sql += DeadJobsWhere(f);
  AddDeadLetterFilters(q, f);
  q.sql +=
      " GROUP BY queue_id, dead_reason, error_fingerprint"
      " ORDER BY n DESC, queue, dead_reason, error_fingerprint NULLS FIRST LIMIT ?";
  q.params.emplace_back(int64_t{f.limit});
  return q;
}

namespace {
// The WHERE clause of a DeadLetterSelection, without its limit.
void AddSelection(BuiltQuery& q, const DeadLetterSelection& sel, const std::string& ids_json) {
  if (!sel.job_ids.empty()) {
    AddText(q, " AND id IN (SELECT " REDRIVE_JOB_ID_OF("value") " FROM json_each(?))", ids_json);
  }
  AddDeadLetterFilters(q, sel);
  if (sel.dead_before) {
    q.sql += " AND deadlettered_at < ?";
    q.params.emplace_back(ToMicros(*sel.dead_before));
  }
  if (sel.auto_revivals_below) {
    q.sql +=
        " AND NOT EXISTS (SELECT 1 FROM job_auto_revivals r WHERE r.job_id = jobs.id"
        " AND r.revivals >= ?)";
    q.params.emplace_back(int64_t{*sel.auto_revivals_below});
  }
}
}  // namespace

BuiltQuery SelectDeadLetters(const DeadLetterSelection& sel, const std::string& ids_json) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_COLUMNS;
  q.sql += DeadJobsWhere(sel);
  AddSelection(q, sel, ids_json);
  q.sql += " ORDER BY deadlettered_at, id LIMIT ?";
  q.params.emplace_back(int64_t{sel.limit});
  return q;
}

BuiltQuery CountDeadLetters(const DeadLetterSelection& sel, const std::string& ids_json) {
  BuiltQuery q;
  q.sql = "SELECT count(*)";
  q.sql += DeadJobsWhere(sel);
  AddSelection(q, sel, ids_json);
  return q;
}

bool WalksBySeq(const JobSelection& sel) { return !sel.after || sel.after->seq > 0; }

namespace {
// A bulk operation's selection and its cursor: " AND (created_at, seq) >
// (?, ?)", a seek in the listing index (queue_name, status, created_at,
// then the rowid, seq), in its order; or, for a cursor without a seq,
// " AND (created_at, id) > (?, ?)", which sorts each created_at's ties
// ("RIGHT PART OF ORDER BY").
void AddSelectionAfter(BuiltQuery& q, const JobSelection& sel, const std::string& ids_json) {
  AddSelection(q, sel.match, ids_json);
  if (!sel.after) return;
  if (WalksBySeq(sel)) {
    q.sql += " AND (created_at, seq) > (?, ?)";
    q.params.emplace_back(ToMicros(sel.after->created_at));
    q.params.emplace_back(sel.after->seq);
  } else {
    q.sql += " AND (created_at, id) > (?, " REDRIVE_JOB_ID_OF("?") ")";
    q.params.emplace_back(ToMicros(sel.after->created_at));
    q.params.emplace_back(sel.after->id);
  }
}
}  // namespace

BuiltQuery SelectJobsAfter(const JobSelection& sel, JobStatus status, const std::string& ids_json) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_JOB_COLUMNS ", seq FROM jobs WHERE status = ?";
  q.params.emplace_back(std::string_view(JobStatusName(status)));
  AddSelectionAfter(q, sel, ids_json);
  q.sql +=
      WalksBySeq(sel) ? " ORDER BY created_at, seq LIMIT ?" : " ORDER BY created_at, id LIMIT ?";
  q.params.emplace_back(int64_t{sel.match.limit});
  return q;
}

BuiltQuery CountSelectedJobs(const JobSelection& sel, const std::string& ids_json) {
  BuiltQuery q;
  q.sql = "SELECT count(*) FROM jobs WHERE status IN (";
  for (size_t i = 0; i < sel.statuses.size(); ++i) {
    q.sql += i == 0 ? "?" : ", ?";
    q.params.emplace_back(std::string_view(JobStatusName(sel.statuses[i])));
  }
  q.sql += ")";
  AddSelectionAfter(q, sel, ids_json);
  return q;
}

}  // namespace redrive::store::sqlite::sql
