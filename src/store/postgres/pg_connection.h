// PgConnection: one libpq connection with a cache of named prepared
// statements, so the hot paths (insert, claim, guarded update) are one round
// trip each and are parsed once per connection. PgResult owns a PGresult;
// PgParams collects text-format parameters.
//
// Errors: every failure becomes a Status by SQLSTATE (PgError); a failure
// that leaves the connection unusable (lost socket, class 08, admin
// shutdown) marks it broken(), and the pool discards it.
//
// Thread-safety: none. A PgConnection is used by one thread at a time (the
// transaction that holds it); it may move between threads.
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace redrive::store::postgres {

// The Status for a failed command: by SQLSTATE, 40001 and 40P01 are
// ABORTED (the write executor runs the request again), and so is a stale
// plan (PgStalePlan, by the `source_function` that raised it); class 08, 57P01-03,
// 25006 (read-only transaction), a lost connection, and classes 53 and 58
// (disk full, out of memory, too many connections, I/O error) are
// UNAVAILABLE; a unique violation (23505) is CONFLICT; anything else is
// INTERNAL. `sqlstate` is empty when libpq itself failed (then
// `connection_ok` decides).
Status PgError(std::string_view sqlstate, std::string_view message, bool connection_ok,
               std::string_view source_function = {});
// True when a failure with `sqlstate` leaves the connection unusable (lost,
// the server going away, or a read-only server): it is closed, not reused.
bool PgConnectionLost(std::string_view sqlstate, bool connection_ok);
// True for "cached plan must not change result type" (0A000, raised by
// PostgreSQL's RevalidateCachedQuery, whatever the server's language): a
// prepared statement whose result columns changed type since it was
// prepared (a migration by a newer node). PostgreSQL refuses it until it is
// prepared again, on every connection that prepared it.
bool PgStalePlan(std::string_view sqlstate, std::string_view source_function);

// Owns one PGresult; rows and columns are read as text.
class PgResult {
 public:
  PgResult() = default;
  explicit PgResult(PGresult* r) : r_(r) {}
  PgResult(PgResult&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  PgResult& operator=(PgResult&& o) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  ~PgResult();

  int rows() const { return r_ ? PQntuples(r_) : 0; }
  // Rows an INSERT/UPDATE/DELETE touched.
  long long affected() const;
  bool IsNull(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }
  std::string_view Text(int row, int col) const {
    return {PQgetvalue(r_, row, col), static_cast<size_t>(PQgetlength(r_, row, col))};
  }
  std::string String(int row, int col) const { return std::string(Text(row, col)); }
  std::optional<std::string> OptString(int row, int col) const;
  // Integers and booleans; a malformed value reads as 0 / false (columns
  // are typed by the schema, so that cannot happen short of a bug).
  int64_t Int64(int row, int col) const;
  int Int(int row, int col) const { return static_cast<int>(Int64(row, col)); }
  bool Bool(int row, int col) const { return Text(row, col) == "t"; }
  Instant Time(int row, int col) const { return InstantFromMicros(Int64(row, col)); }
  std::optional<Instant> OptTime(int row, int col) const;
  std::optional<int64_t> OptInt64(int row, int col) const;

  PGresult* get() const { return r_; }

 private:
  PGresult* r_ = nullptr;
};

// Text-format parameters $1, $2, ... in the order they are added. A
// parameter added by reference points at the caller's string, which must
// outlive the command; the others are copied.
class PgParams {
 public:
  PgParams() = default;
  PgParams(const PgParams&) = delete;
  PgParams& operator=(const PgParams&) = delete;
  // Moving keeps the copied values where they are (the deque's blocks move).
  PgParams(PgParams&&) = default;
  PgParams& operator=(PgParams&&) = default;

  void AddRef(const std::string& s) { values_.push_back(s.c_str()); }
  void Add(std::string s);
  void Add(const char* s) { values_.push_back(s); }  // a literal or other long-lived text
  void Add(int64_t v) { Add(std::to_string(v)); }
  void Add(int v) { Add(static_cast<int64_t>(v)); }
  void Add(bool v) { values_.push_back(v ? "true" : "false"); }
  void Add(Instant t) { Add(ToMicros(t)); }
  void AddNull() { values_.push_back(nullptr); }
  void AddRef(const std::optional<std::string>& s) { s ? AddRef(*s) : AddNull(); }
  void Add(const std::optional<Instant>& t) { t ? Add(*t) : AddNull(); }
  void Add(const std::optional<int64_t>& v) { v ? Add(*v) : AddNull(); }
  // A text[] literal of `items` ({"a","b"}), for "= ANY($n::text[])".
  void AddTextArray(const std::vector<std::string>& items);
  // An array literal of `items` (nullptr: NULL), each element quoted, for
  // "$n::T[]" of any element type T.
  void AddArray(const std::vector<const char*>& items);
  // A copy that owns every value (for a command sent later, when the
  // strings added by reference may be gone).
  PgParams Owned() const;

  int size() const { return static_cast<int>(values_.size()); }
  const char* const* values() const { return values_.data(); }

 private:
  std::vector<const char*> values_;
  std::deque<std::string> owned_;  // stable addresses for copied values
};

struct PgConnectOptions {
  std::chrono::milliseconds connect_timeout{3000};
};

// How every session plans: never a sequential scan where an index serves.
// Every query of ours finds its rows through an index (the claim, the
// sweeps, the set-based writes by key, the listings), and a prepared
// statement keeps the generic plan made with the table's size of its
// time: made on a new, nearly empty `jobs`, a set-based update would join
// its rows to a scan of the whole table and keep doing so as the table
// grows. With this, no plan depends on the table having been analyzed at
// its present size, and the statistics refresh need not ANALYZE (which
// makes every plan of every connection again) while the tables are small
// (pg_planner_statistics.h). A query no index serves still scans.
inline constexpr char kSessionPlanning[] = "SET enable_seqscan = off";

class PgConnection {
 public:
  // Connects to `url` (a libpq connection string or URI, multi-host too),
  // giving up after options.connect_timeout with UNAVAILABLE. The session
  // runs with synchronous_commit=on (a COMMIT returns once durable), UTC,
  // and kSessionPlanning.
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& url,
                                                       const PgConnectOptions& options);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs `sql` (one or more statements, no parameters) with the simple
  // query protocol: transaction control, DDL, migrations.
  Result<PgResult> Exec(const std::string& sql);
  // Runs `sql` as a named prepared statement, prepared on first use on this
  // connection (one round trip afterwards).
  Result<PgResult> ExecPrepared(std::string_view sql, const PgParams& params);
  // Runs each (sql, params) as ExecPrepared would, in pipeline mode: one
  // round trip per kMaxPipeline commands (statements not yet prepared on
  // this connection are prepared first). The results, in order; the first
  // failure fails the call (the commands after it did not run).
  Result<std::vector<PgResult>> ExecPreparedBatch(
      const std::vector<std::pair<std::string_view, const PgParams*>>& commands);
  // Commands per pipeline: the server's replies must fit the socket buffers
  // while libpq is still sending (blocking mode).
  static constexpr size_t kMaxPipeline = 128;
  // Runs `sql` once with parameters (unnamed statement): built queries
  // whose text varies with their filters.
  Result<PgResult> ExecParams(const std::string& sql, const PgParams& params);

  // Deferred commands: `sql` (a prepared statement's text, which must
  // outlive the command: the cached texts do) with `params` is not sent
  // now but in the pipeline of the next ExecPrepared or ExecPreparedBatch,
  // before its commands (Exec and ExecParams send them first, in a round
  // trip of their own). Their results are not kept: a deferred command
  // must report a failure as an error (then the command it rides with, a
  // COMMIT say, does not run, and that call fails with the deferred
  // command's error). A division by zero (SQLSTATE 22012) there is read
  // as CONFLICT: the guarded writes of PgWriteTx raise it.
  void Defer(std::string_view sql, PgParams params);
  bool HasDeferred() const { return !deferred_.empty(); }
  // Sends the deferred commands now (one round trip).
  Status Flush();
  // Drops them unsent (the transaction is rolled back).
  void DiscardDeferred() { deferred_.clear(); }

  // False once the connection is unusable (lost, or failed mid-protocol).
  bool healthy() const;
  // The SQLSTATE and message of the latest failed command since
  // ClearLastError (empty when none failed, or libpq failed on its own).
  const std::string& last_sqlstate() const { return last_sqlstate_; }
  const std::string& last_error() const { return last_error_; }
  void ClearLastError();
  // True while a transaction block is open (or failed and not yet ended).
  bool InTransaction() const;

  // "15.18", host, port and database of the server it is connected to.
  std::string ServerVersion() const;
  std::string Where() const;

  PGconn* get() const { return conn_; }

 private:
  explicit PgConnection(PGconn* conn) : conn_(conn) {}
  // The name `sql` is prepared under on this connection (preparing it now
  // if needed).
  Result<const std::string*> Prepared(std::string_view sql);
  // Commands [begin, end) as one pipeline; their results appended to `out`.
  Status Pipeline(const std::vector<std::pair<std::string_view, const PgParams*>>& commands,
                  size_t begin, size_t end, std::vector<PgResult>& out);
  // ExecPreparedBatch without the deferred commands.
  Result<std::vector<PgResult>> RunBatch(
      const std::vector<std::pair<std::string_view, const PgParams*>>& commands);
  // `commands` after the deferred ones, as one batch; the results of
  // `commands` only.
  Result<std::vector<PgResult>> RunWithDeferred(
      const std::vector<std::pair<std::string_view, const PgParams*>>& commands);
  // The Status of `r` (OK for a command or tuples result); marks the
  // connection broken on a connection-class failure, and every connection's
  // statements stale on a plan whose result type changed (PgStalePlan).
  Status Check(const PGresult* r);
  // Deallocates this connection's prepared statements if a schema change
  // made some connection's stale since they were prepared: before a
  // command or a pipeline, never between the statements of one.
  Status ForgetStatementsIfStale();

  PGconn* conn_;
  bool broken_ = false;
  // The statements' generation (ForgetStatementsIfStale) they were
  // prepared in.
  uint64_t statements_of_ = 0;
  std::string last_sqlstate_;
  std::string last_error_;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::deque<std::pair<std::string_view, PgParams>> deferred_;
  // SQL text -> statement name.
  std::unordered_map<std::string, std::string, Hash, std::equal_to<>> prepared_;
};

}  // namespace redrive::store::postgres
