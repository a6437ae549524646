// The columns of a stored job, in one table: for each, its name, where it is
// stored, which writes assign it, and how it binds, reads and compares. The
// insert, the guarded update (its SET list, binds and guard parameters), the
// change diff and ReadJob are all driven by kJobColumns, so a new field of
// Job is one line here, plus its migration and what is checked against this
// table: the select lists of row_mapping.h (by the compiler) and the one
// change per column of job_columns_test.cc (by that test).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "core/clock.h"
#include "core/job.h"
#include "core/tags_json.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite {

// Where a column lives and which writes assign it.
enum class JobColumnKind {
  kFixed,     // a column of jobs written by the insert only; a change is refused
  kUpdated,   // a column of jobs the guarded update assigns when it changed
  kPayloads,  // a column of job_payloads (large values), assigned only when changed
  kLease,     // a column of job_leases, whose row exists only while the job holds a lease
};

struct JobColumn {
  const char* name;
  JobColumnKind kind;
  // Set for a name kept once in a dictionary table `dictionary` (id INTEGER
  // PRIMARY KEY, name TEXT UNIQUE): the column holds the name's id, written
  // as "(SELECT id FROM <dictionary> WHERE name = ?n)" and read as
  // "(SELECT name FROM <dictionary> WHERE id = jobs.<column>)". The name
  // must be in the dictionary before the write (SqliteWriteTx::InternQueue).
  const char* dictionary;
  // Binds the column's value from `job` to parameter `index`. Text is bound
  // without a copy, so `job` must outlive the statement's use.
  void (*bind)(Statement& stmt, int index, const Job& job);
  // True when the column's value differs between the two jobs.
  bool (*differs)(const Job& a, const Job& b);
  // Reads the column `col` of the current row into `job`; false if the
  // stored value cannot be decoded.
  bool (*read)(const Statement& stmt, int col, Job& job);
};

namespace job_column_internal {

// How a field type maps to a column value. Unspecialised types do not compile.
template <typename T>
struct Codec;

template <>
struct Codec<std::string> {
  static void Bind(Statement& s, int i, const std::string& v) { s.Bind(i, v); }
  static bool Read(const Statement& s, int c, std::string& v) {
    v = s.String(c);
    return true;
  }
};
template <>
struct Codec<std::optional<std::string>> {
  static void Bind(Statement& s, int i, const std::optional<std::string>& v) { s.Bind(i, v); }
  static bool Read(const Statement& s, int c, std::optional<std::string>& v) {
    v = s.OptString(c);
    return true;
  }
};
template <>
struct Codec<int> {
  static void Bind(Statement& s, int i, int v) { s.Bind(i, v); }
  static bool Read(const Statement& s, int c, int& v) {
    v = s.Int(c);
    return true;
  }
};
template <>
struct Codec<Instant> {
  static void Bind(Statement& s, int i, Instant v) { s.Bind(i, v); }
  static bool Read(const Statement& s, int c, Instant& v) {
    v = s.Time(c);
    return true;
  }
};
template <>
struct Codec<std::optional<Instant>> {
  static void Bind(Statement& s, int i, const std::optional<Instant>& v) { s.Bind(i, v); }
  static bool Read(const Statement& s, int c, std::optional<Instant>& v) {
    v = s.OptTime(c);
    return true;
  }
};
template <>
struct Codec<std::chrono::milliseconds> {  // stored as integer milliseconds
  static void Bind(Statement& s, int i, std::chrono::milliseconds v) {
    s.Bind(i, static_cast<int64_t>(v.count()));
  }
  static bool Read(const Statement& s, int c, std::chrono::milliseconds& v) {
    v = std::chrono::milliseconds(s.Int64(c));
    return true;
  }
};
template <>
struct Codec<JobStatus> {  // stored as its name
  static void Bind(Statement& s, int i, JobStatus v) { s.Bind(i, JobStatusName(v)); }
  static bool Read(const Statement& s, int c, JobStatus& v) {
    std::optional<JobStatus> status = ParseJobStatus(s.Text(c));
    if (status) v = *status;
    return status.has_value();
  }
};
template <>
struct Codec<DeadReason> {  // stored as its name; kNone as NULL
  static void Bind(Statement& s, int i, DeadReason v) {
    if (v == DeadReason::kNone) {
      s.BindNull(i);
    } else {
      s.Bind(i, DeadReasonName(v));
    }
  }
  static bool Read(const Statement& s, int c, DeadReason& v) {
    if (s.IsNull(c)) {
      v = DeadReason::kNone;
      return true;
    }
    std::optional<DeadReason> reason = ParseDeadReason(s.Text(c));
    if (reason) v = *reason;
    return reason.has_value();
  }
};
template <>
struct Codec<Tags> {  // stored as a JSON object (job_tags holds one row per tag)
  static void Bind(Statement& s, int i, const Tags& v) { s.BindCopy(i, EncodeTagsJson(v)); }
  static bool Read(const Statement& s, int c, Tags& v) {
    std::optional<Tags> tags = DecodeTagsJson(s.Text(c));
    if (tags) v = std::move(*tags);
    return tags.has_value();
  }
};

// The field reached from `obj` by the member pointers `kFirst, kRest...`
// (one for job.priority; two for job.backoff.base).
template <auto kFirst, auto... kRest>
constexpr auto& FieldOf(auto& obj) {
  if constexpr (sizeof...(kRest) == 0) {
    return obj.*kFirst;
  } else {
    return FieldOf<kRest...>(obj.*kFirst);
  }
}

template <auto... kPath>
constexpr JobColumn Column(const char* name, JobColumnKind kind, const char* dictionary = nullptr) {
  using C = Codec<std::remove_cvref_t<decltype(FieldOf<kPath...>(std::declval<const Job&>()))>>;
  JobColumn column{name, kind, dictionary, nullptr, nullptr, nullptr};
  column.bind = [](Statement& s, int i, const Job& j) { C::Bind(s, i, FieldOf<kPath...>(j)); };
  column.differs = [](const Job& a, const Job& b) {
    return FieldOf<kPath...>(a) != FieldOf<kPath...>(b);
  };
  column.read = [](const Statement& s, int c, Job& j) {
    return C::Read(s, c, FieldOf<kPath...>(j));
  };
  return column;
}

}  // namespace job_column_internal

// Table entries for the field at `kPath` (member pointers from Job), by kind.
template <auto... kPath>
constexpr JobColumn FixedColumn(const char* name) {
  return job_column_internal::Column<kPath...>(name, JobColumnKind::kFixed);
}
template <auto... kPath>
constexpr JobColumn UpdatedColumn(const char* name) {
  return job_column_internal::Column<kPath...>(name, JobColumnKind::kUpdated);
}
// An updated column of jobs holding the id of its value in `dictionary`.
template <auto... kPath>
constexpr JobColumn InternedColumn(const char* name, const char* dictionary) {
  return job_column_internal::Column<kPath...>(name, JobColumnKind::kUpdated, dictionary);
}
template <auto... kPath>
constexpr JobColumn PayloadsColumn(const char* name) {
  return job_column_internal::Column<kPath...>(name, JobColumnKind::kPayloads);
}
template <auto... kPath>
constexpr JobColumn LeaseColumn(const char* name) {
  return job_column_internal::Column<kPath...>(name, JobColumnKind::kLease);
}

// Every field of a job, in the order of the select lists (row_mapping.h).
inline constexpr JobColumn kJobColumns[] = {
    FixedColumn<&Job::id>("id"),
    // A redrive may move a job (target_queue). Its name is kept once, in
    // queue_names (compact_schema.cc, version 29).
    InternedColumn<&Job::queue_name>("queue_id", "queue_names"),
    UpdatedColumn<&Job::status>("status"),
    PayloadsColumn<&Job::payload>("payload"),
    PayloadsColumn<&Job::result>("result"),
    UpdatedColumn<&Job::priority>("priority"),
    UpdatedColumn<&Job::retry_count>("retry_count"),
    UpdatedColumn<&Job::max_retries>("max_retries"),
    UpdatedColumn<&Job::timeout_seconds>("timeout_seconds"),
    UpdatedColumn<&Job::backoff, &BackoffPolicy::base>("backoff_base_ms"),
    UpdatedColumn<&Job::backoff, &BackoffPolicy::max>("backoff_max_ms"),
    UpdatedColumn<&Job::backoff, &BackoffPolicy::jitter>("backoff_jitter_ms"),
    UpdatedColumn<&Job::last_error>("last_error"),
    UpdatedColumn<&Job::dead_reason>("dead_reason"),
    FixedColumn<&Job::tags>("tags"),  // no transition changes tags (job_tags is written at insert)
    FixedColumn<&Job::idempotency_key>("idempotency_key"),
    FixedColumn<&Job::created_at>("created_at"),
    UpdatedColumn<&Job::updated_at>("updated_at"),
    UpdatedColumn<&Job::scheduled_at>("scheduled_at"),
    UpdatedColumn<&Job::started_at>("started_at"),
    UpdatedColumn<&Job::completed_at>("completed_at"),
    UpdatedColumn<&Job::expires_at>("expires_at"),
    UpdatedColumn<&Job::deadlettered_at>("deadlettered_at"),
    LeaseColumn<&Job::assigned_worker_id>("assigned_worker_id"),
    LeaseColumn<&Job::lease_id>("lease_id"),
    LeaseColumn<&Job::lease_expires_at>("lease_expires_at"),
    UpdatedColumn<&Job::attempts>("attempts"),
    UpdatedColumn<&Job::lease_expiries>("lease_expiries"),
    UpdatedColumn<&Job::crash_count>("crash_count"),
    UpdatedColumn<&Job::crash_limit>("crash_limit"),
    UpdatedColumn<&Job::snooze_count>("snooze_count"),
    UpdatedColumn<&Job::max_snoozes>("max_snoozes"),
    // Added by migrations, in their order: the table's last columns.
    FixedColumn<&Job::completion_webhook>("completion_webhook"),
    UpdatedColumn<&Job::error_fingerprint>("error_fingerprint"),
};
inline constexpr int kJobColumnCount = static_cast<int>(std::size(kJobColumns));

// A set of columns: bit i stands for kJobColumns[i].
using JobColumnSet = uint64_t;
static_assert(kJobColumnCount <= 64, "JobColumnSet has one bit per column");

constexpr JobColumnSet ColumnBit(int i) { return JobColumnSet{1} << i; }

// The columns of one kind.
constexpr JobColumnSet ColumnsOfKind(JobColumnKind kind) {
  JobColumnSet set = 0;
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (kJobColumns[i].kind == kind) set |= ColumnBit(i);
  }
  return set;
}

inline constexpr JobColumnSet kFixedColumns = ColumnsOfKind(JobColumnKind::kFixed);
inline constexpr JobColumnSet kUpdatedColumns = ColumnsOfKind(JobColumnKind::kUpdated);
inline constexpr JobColumnSet kPayloadsColumns = ColumnsOfKind(JobColumnKind::kPayloads);
inline constexpr JobColumnSet kLeaseColumns = ColumnsOfKind(JobColumnKind::kLease);
// The columns of the jobs table itself.
inline constexpr JobColumnSet kJobsTableColumns = kFixedColumns | kUpdatedColumns;

// The index of the column named `name` in kJobColumns (-1 if none).
constexpr int JobColumnIndex(std::string_view name) {
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (kJobColumns[i].name == name) return i;
  }
  return -1;
}

// The columns whose values differ between `a` and `b`.
JobColumnSet ChangedColumns(const Job& a, const Job& b);

// Binds the columns in `columns`, in table order, to ?first, ?first+1, ...;
// returns the next free parameter index.
int BindColumns(Statement& stmt, const Job& job, JobColumnSet columns, int first = 1);

}  // namespace redrive::store::sqlite
