// The columns of redrive.jobs, in one table, as on SQLite
// (store/sqlite/job_columns.h): for each, its name, whether a transition may
// assign it, and how it binds, reads and compares. The insert, the guarded
// update (its SET list and parameters), the change diff and ReadJob are all
// driven by kPgJobColumns, so a new field of Job is one line here plus its
// migration; pg_job_columns_test.cc checks the table against the schema.
#pragma once

#include <chrono>
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
#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres {

struct PgJobColumn {
  const char* name;
  bool fixed;  // written by the insert only; a change to it is refused
  // The SQL type its parameters are cast to ("text", "bigint", ...).
  const char* type;
  // Appends the column's value from `job` as the next parameter. Text is
  // added by reference, so `job` must outlive the command.
  void (*bind)(PgParams& params, const Job& job);
  bool (*differs)(const Job& a, const Job& b);
  // Reads column `col` of row `row` into `job`; false if it cannot be decoded.
  bool (*read)(const PgResult& r, int row, int col, Job& job);
};

namespace pg_column_internal {

template <typename T>
struct Codec;

template <>
struct Codec<std::string> {
  static constexpr const char* kType = "text";
  static void Bind(PgParams& p, const std::string& v) { p.AddRef(v); }
  static bool Read(const PgResult& r, int row, int c, std::string& v) {
    v = r.String(row, c);
    return true;
  }
};
template <>
struct Codec<std::optional<std::string>> {
  static constexpr const char* kType = "text";
  static void Bind(PgParams& p, const std::optional<std::string>& v) { p.AddRef(v); }
  static bool Read(const PgResult& r, int row, int c, std::optional<std::string>& v) {
    v = r.OptString(row, c);
    return true;
  }
};
template <>
struct Codec<int> {
  static constexpr const char* kType = "integer";
  static void Bind(PgParams& p, int v) { p.Add(v); }
  static bool Read(const PgResult& r, int row, int c, int& v) {
    v = r.Int(row, c);
    return true;
  }
};
template <>
struct Codec<Instant> {
  static constexpr const char* kType = "bigint";
  static void Bind(PgParams& p, Instant v) { p.Add(v); }
  static bool Read(const PgResult& r, int row, int c, Instant& v) {
    v = r.Time(row, c);
    return true;
  }
};
template <>
struct Codec<std::optional<Instant>> {
  static constexpr const char* kType = "bigint";
  static void Bind(PgParams& p, const std::optional<Instant>& v) { p.Add(v); }
  static bool Read(const PgResult& r, int row, int c, std::optional<Instant>& v) {
    v = r.OptTime(row, c);
    return true;
  }
};
template <>
struct Codec<std::chrono::milliseconds> {  // integer milliseconds
  static constexpr const char* kType = "bigint";
  static void Bind(PgParams& p, std::chrono::milliseconds v) {
    p.Add(static_cast<int64_t>(v.count()));
  }
  static bool Read(const PgResult& r, int row, int c, std::chrono::milliseconds& v) {
    v = std::chrono::milliseconds(r.Int64(row, c));
    return true;
  }
};
template <>
struct Codec<JobStatus> {  // its name
  static constexpr const char* kType = "text";
  static void Bind(PgParams& p, JobStatus v) { p.Add(JobStatusName(v)); }
  static bool Read(const PgResult& r, int row, int c, JobStatus& v) {
    std::optional<JobStatus> status = ParseJobStatus(r.Text(row, c));
    if (status) v = *status;
    return status.has_value();
  }
};
template <>
struct Codec<DeadReason> {  // its name; kNone as NULL
  static constexpr const char* kType = "text";
  static void Bind(PgParams& p, DeadReason v) {
    if (v == DeadReason::kNone) {
      p.AddNull();
    } else {
      p.Add(DeadReasonName(v));
    }
  }
  static bool Read(const PgResult& r, int row, int c, DeadReason& v) {
    if (r.IsNull(row, c)) {
      v = DeadReason::kNone;
      return true;
    }
    std::optional<DeadReason> reason = ParseDeadReason(r.Text(row, c));
    if (reason) v = *reason;
    return reason.has_value();
  }
};
template <>
struct Codec<Tags> {  // a jsonb object
  static constexpr const char* kType = "jsonb";
  static void Bind(PgParams& p, const Tags& v) { p.Add(EncodeTagsJson(v)); }
  static bool Read(const PgResult& r, int row, int c, Tags& v) {
    std::optional<Tags> tags = DecodeTagsJson(r.Text(row, c));
    if (tags) v = std::move(*tags);
    return tags.has_value();
  }
};

// The field reached from `obj` by the member pointers `kFirst, kRest...`.
template <auto kFirst, auto... kRest>
constexpr auto& FieldOf(auto& obj) {
  if constexpr (sizeof...(kRest) == 0) {
    return obj.*kFirst;
  } else {
    return FieldOf<kRest...>(obj.*kFirst);
  }
}

template <auto... kPath>
constexpr PgJobColumn Column(const char* name, bool fixed) {
  using C = Codec<std::remove_cvref_t<decltype(FieldOf<kPath...>(std::declval<const Job&>()))>>;
  PgJobColumn column{name, fixed, C::kType, nullptr, nullptr, nullptr};
  column.bind = [](PgParams& p, const Job& j) { C::Bind(p, FieldOf<kPath...>(j)); };
  column.differs = [](const Job& a, const Job& b) {
    return FieldOf<kPath...>(a) != FieldOf<kPath...>(b);
  };
  column.read = [](const PgResult& r, int row, int c, Job& j) {
    return C::Read(r, row, c, FieldOf<kPath...>(j));
  };
  return column;
}

}  // namespace pg_column_internal

template <auto... kPath>
constexpr PgJobColumn FixedColumn(const char* name) {
  return pg_column_internal::Column<kPath...>(name, true);
}
template <auto... kPath>
constexpr PgJobColumn UpdatedColumn(const char* name) {
  return pg_column_internal::Column<kPath...>(name, false);
}

// Every field of a job, in the order of the select lists (pg_job_sql.h).
inline constexpr PgJobColumn kPgJobColumns[] = {
    FixedColumn<&Job::id>("id"),
    UpdatedColumn<&Job::queue_name>("queue_name"),  // a redrive may move a job (target_queue)
    UpdatedColumn<&Job::status>("status"),
    UpdatedColumn<&Job::payload>("payload"),
    UpdatedColumn<&Job::result>("result"),
    UpdatedColumn<&Job::priority>("priority"),
    UpdatedColumn<&Job::retry_count>("retry_count"),
    UpdatedColumn<&Job::max_retries>("max_retries"),
    UpdatedColumn<&Job::timeout_seconds>("timeout_seconds"),
    UpdatedColumn<&Job::backoff, &BackoffPolicy::base>("backoff_base_ms"),
    UpdatedColumn<&Job::backoff, &BackoffPolicy::max>("backoff_max_ms"),
    UpdatedColumn<&Job::backoff, &BackoffPolicy::jitter>("backoff_jitter_ms"),
    UpdatedColumn<&Job::last_error>("last_error"),
    UpdatedColumn<&Job::dead_reason>("dead_reason"),
    FixedColumn<&Job::tags>("tags"),
    FixedColumn<&Job::idempotency_key>("idempotency_key"),
    FixedColumn<&Job::created_at>("created_at"),
    UpdatedColumn<&Job::updated_at>("updated_at"),
    UpdatedColumn<&Job::scheduled_at>("scheduled_at"),
    UpdatedColumn<&Job::started_at>("started_at"),
    UpdatedColumn<&Job::completed_at>("completed_at"),
    UpdatedColumn<&Job::expires_at>("expires_at"),
    UpdatedColumn<&Job::deadlettered_at>("deadlettered_at"),
    UpdatedColumn<&Job::assigned_worker_id>("assigned_worker_id"),
    UpdatedColumn<&Job::lease_id>("lease_id"),
    UpdatedColumn<&Job::lease_expires_at>("lease_expires_at"),
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
inline constexpr int kPgJobColumnCount = static_cast<int>(std::size(kPgJobColumns));

// A set of columns: bit i stands for kPgJobColumns[i].
using PgColumnSet = uint64_t;
static_assert(kPgJobColumnCount <= 64, "PgColumnSet has one bit per column");

constexpr PgColumnSet PgColumnBit(int i) { return PgColumnSet{1} << i; }

constexpr int PgJobColumnIndex(std::string_view name) {
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (kPgJobColumns[i].name == name) return i;
  }
  return -1;
}

constexpr PgColumnSet PgFixedColumns() {
  PgColumnSet set = 0;
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    if (kPgJobColumns[i].fixed) set |= PgColumnBit(i);
  }
  return set;
}
inline constexpr PgColumnSet kPgAllColumns = (PgColumnSet{1} << kPgJobColumnCount) - 1;
inline constexpr PgColumnSet kPgFixedColumns = PgFixedColumns();

// The columns whose values differ between `a` and `b`.
PgColumnSet ChangedPgColumns(const Job& a, const Job& b);
// Appends the columns in `columns`, in table order, as the next parameters.
void BindPgColumns(PgParams& params, const Job& job, PgColumnSet columns);
// Reads a job from `row`, whose columns start at `first` in table order.
// INTERNAL if a stored value cannot be decoded.
Result<Job> ReadPgJob(const PgResult& r, int row, int first = 0);

}  // namespace redrive::store::postgres
