#include "store/postgres/pg_job_sql.h"

#include <bit>

#include "core/json_text.h"
#include "core/text_cache.h"

namespace redrive::store::postgres::sql {
namespace {

constexpr PgColumnSet kUpdatedAt = PgColumnBit(PgJobColumnIndex("updated_at"));

// The select lists follow kPgJobColumns: each item is the column's name, or
// in a summary an empty value for payload and result.
consteval bool SelectListMatches(std::string_view list, bool summary) {
  int column = 0;
  size_t start = 0;
  for (size_t pos = 0; pos <= list.size(); ++pos) {
    if (pos < list.size() && list[pos] != ',') continue;
    std::string_view item = list.substr(start, pos - start);
    while (item.starts_with(' ')) item.remove_prefix(1);
    while (item.ends_with(' ')) item.remove_suffix(1);
    if (column == kPgJobColumnCount) return false;
    std::string_view name = kPgJobColumns[column].name;
    bool large = name == "payload" || name == "result";
    bool ok = summary && large ? (item == "''" || item == "NULL") : item == name;
    if (!ok) return false;
    ++column;
    start = pos + 1;
  }
  return column == kPgJobColumnCount;
}
static_assert(SelectListMatches(REDRIVE_PG_JOB_COLUMNS, false),
              "REDRIVE_PG_JOB_COLUMNS must list kPgJobColumns in order");
static_assert(SelectListMatches(REDRIVE_PG_JOB_SUMMARY_COLUMNS, true),
              "REDRIVE_PG_JOB_SUMMARY_COLUMNS must list kPgJobColumns in order");

std::string Param(int n) { return "$" + std::to_string(n); }

// "$n::type": parameter n for column i, typed as the column's base type.
// Untyped, PostgreSQL would type it as the column's domain
// (pg_job_checks_sql.cc, version 25) and check it as it reads it, setting
// up the domain's check for each value; typed, the assignment checks it
// with the plan's own copy.
std::string TypedParam(int n, int column) { return Param(n) + "::" + kPgJobColumns[column].type; }

// "INSERT INTO redrive.job_history (...) SELECT $first::text, <cte>.id, ...
// FROM <cte> RETURNING job_id": the entry of the job the CTE wrote. The
// casts type parameters a SELECT list cannot infer.
std::string HistoryFrom(const char* cte, int first) {
  return std::string("INSERT INTO redrive.job_history (" REDRIVE_PG_HISTORY_COLUMNS ") SELECT ") +
         Param(first) + "::text, " + cte + ".id, " + Param(first + 1) + "::text, " +
         Param(first + 2) + "::text, " + Param(first + 3) + "::text, " + Param(first + 4) +
         "::bigint, " + Param(first + 5) + "::text FROM " + cte + " RETURNING job_id";
}

std::string BuildInsert() {
  std::string names;
  std::string values;
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (i > 0) {
      names += ", ";
      values += ", ";
    }
    names += kPgJobColumns[i].name;
    values += TypedParam(i + 1, i);
  }
  return "WITH j AS (INSERT INTO redrive.jobs (" + names + ") VALUES (" + values +
         ") ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING"
         " RETURNING id) " +
         HistoryFrom("j", kPgJobColumnCount + 1);
}

std::string BuildUpdate(PgColumnSet changed, bool history) {
  const PgColumnSet assigned = AssignedColumns(changed);
  std::string update = "UPDATE redrive.jobs SET ";
  int n = 0;
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (!(assigned & PgColumnBit(i))) continue;
    if (n > 0) update += ", ";
    update += kPgJobColumns[i].name;
    update += " = " + TypedParam(++n, i);
  }
  const int guard = n + 1;
  update += " WHERE id = " + Param(guard) + " AND status = " + Param(guard + 1) +
            " AND lease_id IS NOT DISTINCT FROM " + Param(guard + 2) + "::text";
  if (!history) return update;
  return "WITH u AS (" + update + " RETURNING id) " + HistoryFrom("u", guard + 3);
}

// `sql` is "WITH u AS (...) <final>" (BuildUpdate's form): as a CTE too,
// then a final select that divides by zero unless `u` wrote a row.
std::string BuildCheckedUpdate(PgColumnSet changed, bool history) {
  if (!history) {
    return "WITH u AS (" + BuildUpdate(changed, false) +
           " RETURNING id) SELECT 1 / count(*) FROM u";
  }
  const std::string full = BuildUpdate(changed, true);
  const size_t tail = full.find(" INSERT INTO redrive.job_history");
  return full.substr(0, tail) + ", h AS (" + full.substr(tail + 1) + ") SELECT 1 / count(*) FROM h";
}

// The parameters of a set-based statement: arrays ($1::T[], ...) unnested
// into the rows of a CTE `v`, one column each.
class UnnestList {
 public:
  void Add(const char* type, std::string column) {
    if (!arrays_.empty()) {
      arrays_ += ", ";
      columns_ += ", ";
    }
    arrays_ += Param(++n_) + "::" + type + "[]";
    columns_ += std::move(column);
  }
  void AddHistory() {
    Add("text", "h_id");
    Add("text", "h_event");
    Add("text", "h_worker");
    Add("text", "h_details");
    Add("bigint", "h_created");
    Add("text", "h_node");
  }
  // "v AS (SELECT * FROM unnest(...) AS v(...))"
  std::string Cte() const {
    return "v AS (SELECT * FROM unnest(" + arrays_ + ") AS v(" + columns_ + "))";
  }

 private:
  int n_ = 0;
  std::string arrays_;
  std::string columns_;
};

// ", h AS (INSERT INTO redrive.job_history ...)": the entries (v.h_*) of
// the rows of v whose job `written` (a CTE of ids) wrote.
std::string HistoryOfWritten(const char* id, const char* written) {
  return std::string(", h AS (INSERT INTO redrive.job_history (" REDRIVE_PG_HISTORY_COLUMNS
                     ") SELECT v.h_id, v.") +
         id + ", v.h_event, v.h_worker, v.h_details, v.h_created, v.h_node FROM v JOIN " + written +
         " ON " + written + ".id = v." + id + ")";
}

std::string ColumnAlias(int i) { return "c" + std::to_string(i); }

std::string BuildInsertMany() {
  UnnestList v;
  std::string names;
  std::string values;
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    v.Add(kPgJobColumns[i].type, ColumnAlias(i));
    if (i > 0) {
      names += ", ";
      values += ", ";
    }
    names += kPgJobColumns[i].name;
    values += ColumnAlias(i);
  }
  v.AddHistory();
  const std::string id = ColumnAlias(PgJobColumnIndex("id"));
  return "WITH " + v.Cte() + ", j AS (INSERT INTO redrive.jobs (" + names + ") SELECT " + values +
         " FROM v ON CONFLICT (idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING"
         " RETURNING id)" +
         HistoryOfWritten(id.c_str(), "j") + " SELECT id FROM j";
}

std::string BuildUpdateMany(PgColumnSet changed, bool history) {
  const PgColumnSet assigned = AssignedColumns(changed);
  UnnestList v;
  std::string sets;
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (!(assigned & PgColumnBit(i))) continue;
    v.Add(kPgJobColumns[i].type, ColumnAlias(i));
    if (!sets.empty()) sets += ", ";
    sets += std::string(kPgJobColumns[i].name) + " = v." + ColumnAlias(i);
  }
  v.Add("text", "id");
  v.Add("text", "before_status");
  v.Add("text", "before_lease");
  if (history) v.AddHistory();
  return "WITH " + v.Cte() + ", u AS (UPDATE redrive.jobs AS j SET " + sets +
         " FROM v WHERE j.id = v.id AND j.status = v.before_status"
         " AND j.lease_id IS NOT DISTINCT FROM v.before_lease RETURNING j.id)" +
         (history ? HistoryOfWritten("id", "u") : "") + " SELECT id FROM u";
}

std::string BuildCheckedUpdateMany(PgColumnSet changed, bool history) {
  std::string sql = BuildUpdateMany(changed, history);
  sql.resize(sql.size() - std::string_view(" SELECT id FROM u").size());
  return sql + " SELECT 1 / ((SELECT count(*) FROM u) = (SELECT count(*) FROM v))::int";
}

// Appends "AND <tag condition>" for "key=value" (exact) or "key" (presence);
// both are answered by jobs_tags, which holds only jobs with tags: the
// condition says so too (it follows from either), so that the planner may
// use the partial index.
void AddTagFilter(BuiltQuery& q, std::string_view tag) {
  q.sql += " AND tags <> '{}'::jsonb";
  size_t eq = tag.find('=');
  if (eq == std::string_view::npos) {
    q.params.Add(std::string(tag));
    q.sql += " AND tags ? " + Param(q.params.size());
  } else {
    q.params.Add("{" + JsonQuote(tag.substr(0, eq)) + ":" + JsonQuote(tag.substr(eq + 1)) + "}");
    q.sql += " AND tags @> " + Param(q.params.size()) + "::jsonb";
  }
}

void AddText(BuiltQuery& q, const char* condition, std::string value) {
  q.params.Add(std::move(value));
  q.sql += condition + Param(q.params.size());
}

// An exact, case-sensitive prefix: no LIKE wildcards; NULL never matches.
void AddErrorPrefix(BuiltQuery& q, const std::string& prefix) {
  q.params.AddRef(prefix);
  q.sql += " AND starts_with(last_error, " + Param(q.params.size()) + ")";
}

template <typename Filter>
void AddDeadLetterFilters(BuiltQuery& q, const Filter& f) {
  if (f.queue_name) AddText(q, " AND queue_name = ", *f.queue_name);
  if (f.dead_reason) AddText(q, " AND dead_reason = ", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  if (f.error_prefix) AddErrorPrefix(q, *f.error_prefix);
  if (f.fingerprint) AddText(q, " AND error_fingerprint = ", *f.fingerprint);
}

void AddLimit(BuiltQuery& q, int limit) {
  q.params.Add(limit);
  q.sql += " LIMIT " + Param(q.params.size());
}

void AddLimitOffset(BuiltQuery& q, int limit, int offset) {
  AddLimit(q, limit);
  q.params.Add(offset);
  q.sql += " OFFSET " + Param(q.params.size());
}

// The text `build` makes for (changed, history), built once per key
// (core/text_cache.h). The top bit (no column) marks history.
template <std::string (*build)(PgColumnSet, bool)>
std::string_view CachedUpdateText(PgColumnSet changed, bool history) {
  static TextCache<PgColumnSet>& texts = TextCache<PgColumnSet>::Lasting();
  const PgColumnSet key = AssignedColumns(changed) | (history ? PgColumnSet{1} << 63 : 0);
  return texts.Get(key, [&] { return build(changed, history); });
}

}  // namespace

std::string_view InsertJobSql() {
  static const std::string* const text = new std::string(BuildInsert());
  return *text;
}

std::string_view InsertJobsSql() {
  static const std::string* const text = new std::string(BuildInsertMany());
  return *text;
}

std::string_view UpdateJobsSql(PgColumnSet changed, bool history) {
  return CachedUpdateText<BuildUpdateMany>(changed, history);
}

std::string_view CheckedUpdateJobSql(PgColumnSet changed, bool history) {
  return CachedUpdateText<BuildCheckedUpdate>(changed, history);
}

std::string_view CheckedUpdateJobsSql(PgColumnSet changed, bool history) {
  return CachedUpdateText<BuildCheckedUpdateMany>(changed, history);
}

PgColumnSet AssignedColumns(PgColumnSet changed) {
  return (changed | kUpdatedAt) & ~kPgFixedColumns & kPgAllColumns;
}

int GuardParam(PgColumnSet changed) { return std::popcount(AssignedColumns(changed)) + 1; }

std::string_view UpdateJobSql(PgColumnSet changed, bool history) {
  return CachedUpdateText<BuildUpdate>(changed, history);
}

BuiltQuery ListJobs(const JobFilter& f, bool with_payload) {
  BuiltQuery q;
  q.sql = with_payload ? "SELECT " REDRIVE_PG_JOB_COLUMNS " FROM redrive.jobs WHERE TRUE"
                       : "SELECT " REDRIVE_PG_JOB_SUMMARY_COLUMNS " FROM redrive.jobs WHERE TRUE";
  if (f.queue_name) AddText(q, " AND queue_name = ", *f.queue_name);
  if (f.status) AddText(q, " AND status = ", JobStatusName(*f.status));
  if (f.dead_reason) AddText(q, " AND dead_reason = ", DeadReasonName(*f.dead_reason));
  if (f.tag) AddTagFilter(q, *f.tag);
  if (f.error_prefix) AddErrorPrefix(q, *f.error_prefix);
  if (f.fingerprint) AddText(q, " AND error_fingerprint = ", *f.fingerprint);
  q.sql += " ORDER BY created_at DESC, id DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery ListDeadLetters(const JobFilter& f) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_PG_JOB_SUMMARY_COLUMNS " FROM redrive.jobs WHERE status = 'deadletter'";
  AddDeadLetterFilters(q, f);
  q.sql += " ORDER BY deadlettered_at DESC, id DESC";
  AddLimitOffset(q, f.limit, f.offset);
  return q;
}

BuiltQuery SummarizeDeadLetters(const JobFilter& f) {
  BuiltQuery q;
  // last_error is COLLATE "C": min() is the smallest in binary order, as on SQLite.
  q.sql = "SELECT queue_name, dead_reason, error_fingerprint, left(min(last_error), " +
          std::to_string(kDeadLetterErrorChars) +
          "), count(*) AS n, min(deadlettered_at), max(deadlettered_at)"
          " FROM redrive.jobs WHERE status = 'deadletter'";
  AddDeadLetterFilters(q, f);
  // NULLS FIRST: as SQLite orders them (a missing fingerprint sorts first).
  q.sql +=
      " GROUP BY queue_name, dead_reason, error_fingerprint"
      " ORDER BY n DESC, queue_name, dead_reason, error_fingerprint NULLS FIRST";
  AddLimit(q, f.limit);
  return q;
}

namespace {
// The WHERE clause of a DeadLetterSelection, without its limit.
void AddSelection(BuiltQuery& q, const DeadLetterSelection& sel) {
  if (!sel.job_ids.empty()) {
    q.params.AddTextArray(sel.job_ids);
    q.sql += " AND id = ANY(" + Param(q.params.size()) + "::text[])";
  }
  AddDeadLetterFilters(q, sel);
  if (sel.dead_before) {
    q.params.Add(*sel.dead_before);
    q.sql += " AND deadlettered_at < " + Param(q.params.size());
  }
  if (sel.auto_revivals_below) {
    q.params.Add(*sel.auto_revivals_below);
    q.sql +=
        " AND NOT EXISTS (SELECT 1 FROM redrive.job_auto_revivals r WHERE r.job_id = jobs.id"
        " AND r.revivals >= " +
        Param(q.params.size()) + ")";
  }
}
}  // namespace

// Counts what is committed; rows another transaction holds are counted too
// (a count locks nothing).
BuiltQuery CountDeadLetters(const DeadLetterSelection& sel) {
  BuiltQuery q;
  q.sql = "SELECT count(*) FROM redrive.jobs WHERE status = 'deadletter'";
  AddSelection(q, sel);
  return q;
}

BuiltQuery SelectDeadLetters(const DeadLetterSelection& sel) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_PG_JOB_COLUMNS " FROM redrive.jobs WHERE status = 'deadletter'";
  AddSelection(q, sel);
  q.sql += " ORDER BY deadlettered_at, id";
  AddLimit(q, sel.limit);
  q.sql += " FOR UPDATE SKIP LOCKED";
  return q;
}

namespace {
// A bulk operation's selection and its cursor: "(created_at, id) > (…)",
// which PostgreSQL seeks in the (queue_name, status, created_at, id) index.
void AddSelectionAfter(BuiltQuery& q, const JobSelection& sel) {
  AddSelection(q, sel.match);
  if (sel.after) {
    q.params.Add(sel.after->created_at);
    q.sql += " AND (created_at, id) > (" + Param(q.params.size());
    q.params.Add(sel.after->id);
    q.sql += ", " + Param(q.params.size()) + ")";
  }
}
}  // namespace

BuiltQuery SelectJobsAfter(const JobSelection& sel, JobStatus status) {
  BuiltQuery q;
  q.sql = "SELECT " REDRIVE_PG_JOB_COLUMNS " FROM redrive.jobs WHERE status = ";
  q.params.Add(std::string(JobStatusName(status)));
  q.sql += Param(q.params.size());
  AddSelectionAfter(q, sel);
  q.sql += " ORDER BY created_at, id";
  AddLimit(q, sel.match.limit);
  q.sql += " FOR UPDATE SKIP LOCKED";
  return q;
}

BuiltQuery CountSelectedJobs(const JobSelection& sel) {
  BuiltQuery q;
  std::vector<std::string> statuses;
  for (JobStatus st : sel.statuses) statuses.emplace_back(JobStatusName(st));
  q.params.AddTextArray(statuses);
  q.sql = "SELECT count(*) FROM redrive.jobs WHERE status = ANY(" + Param(q.params.size()) +
          "::text[])";
  AddSelectionAfter(q, sel);
  return q;
}

}  // namespace redrive::store::postgres::sql
