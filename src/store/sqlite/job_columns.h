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

// How three columns of jobs are stored (compact_schema.cc, version 29), as
// macros so that queries stay single string literals:
// - a job's id through compact_id(), an SQL function of every connection
//   (connection.cc): a UUID as its 16 bytes, any other id as its text.
//   REDRIVE_JOB_ID_OF(param) is the stored form of the id bound to `param`,
//   which every statement compares with a stored id; REDRIVE_JOB_ID reads a
//   job's id back as text. Stored ids compare with stored ids as they are.
// - a job's queue as queue_id, the id of its name in queue_names, where each
//   name is kept once. REDRIVE_JOB_QUEUE reads the name; REDRIVE_QUEUE_ID(param)
//   is the id of the name bound to `param`, to compare with queue_id (NULL,
//   so matching no job, for a name no job was ever in). Each is one lookup by
//   key.
#define REDRIVE_JOB_ID_OF(param) "compact_id(" param ")"
#define REDRIVE_JOB_ID "id_text(jobs.id)"
#define REDRIVE_JOB_QUEUE "(SELECT name FROM queue_names WHERE id = jobs.queue_id)"
#define REDRIVE_QUEUE_ID(param) "(SELECT id FROM queue_names WHERE name = " param ")"
// - a job's updated_at as NULL when it is its completed_at (UpdatedAtColumn
//   below), read back by REDRIVE_JOB_UPDATED_AT.
#define REDRIVE_JOB_UPDATED_AT "coalesce(jobs.updated_at, jobs.completed_at)"

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
  // A column stored other than as its value binds: `write` is the value to
  // store, with "?" where the parameter goes, and `read_as` the select item
  // that reads it back (REDRIVE_JOB_ID, REDRIVE_JOB_QUEUE). nullptr: the
  // parameter itself, and the column by its name.
  const char* write;
  const char* read_as;
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
constexpr JobColumn Column(const char* name, JobColumnKind kind, const char* write = nullptr,
                           const char* read_as = nullptr) {
  using C = Codec<std::remove_cvref_t<decltype(FieldOf<kPath...>(std::declval<const Job&>()))>>;
  JobColumn column{name, kind, write, read_as, nullptr, nullptr, nullptr};
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
// A column of jobs of `kind` stored as `write` and read back as `read_as`.
template <auto... kPath>
constexpr JobColumn StoredColumn(const char* name, JobColumnKind kind, const char* write,
                                 const char* read_as) {
  return job_column_internal::Column<kPath...>(name, kind, write, read_as);
}
template <auto... kPath>
constexpr JobColumn PayloadsColumn(const char* name) {
  return job_column_internal::Column<kPath...>(name, JobColumnKind::kPayloads);
}
template <auto... kPath>
constexpr JobColumn LeaseColumn(const char* name) {
  return job_column_internal::Column<kPath...>(name, JobColumnKind::kLease);
}

// updated_at: a finished job's last change is its finishing, whose instant
// completed_at holds too, so the row holds NULL when the two are the same
// and the select lists read it back from completed_at (compact_schema.cc,
// version 29). Every write assigns updated_at, with completed_at as the
// write leaves it, so the two agree at every write.
constexpr JobColumn UpdatedAtColumn() {
  JobColumn column = job_column_internal::Column<&Job::updated_at>(
      "updated_at", JobColumnKind::kUpdated, nullptr, REDRIVE_JOB_UPDATED_AT);
  column.bind = [](Statement& s, int i, const Job& j) {
    if (j.completed_at == j.updated_at) {
      s.BindNull(i);
    } else {
      s.Bind(i, j.updated_at);
    }
  };
  return column;
}

// Every field of a job, in the order of the select lists (row_mapping.h).
inline constexpr JobColumn kJobColumns[] = {
    StoredColumn<&Job::id>("id", JobColumnKind::kFixed, REDRIVE_JOB_ID_OF("?"), REDRIVE_JOB_ID),
    // A redrive may move a job (target_queue).
    StoredColumn<&Job::queue_name>("queue_id", JobColumnKind::kUpdated, REDRIVE_QUEUE_ID("?"),
                                   REDRIVE_JOB_QUEUE),
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
    UpdatedAtColumn(),
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
