#include "store/postgres/pg_connection.h"

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>

namespace redrive::store::postgres {
namespace {

// "a" or "a: b" without libpq's trailing newline.
std::string Trimmed(const char* text) {
  std::string s = text != nullptr ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// Waits until the socket of `conn` is ready for `events` or `deadline`
// passes; false on timeout or a poll error.
bool WaitSocket(PGconn* conn, short events, std::chrono::steady_clock::time_point deadline) {
  pollfd fd{PQsocket(conn), events, 0};
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    int n = poll(&fd, 1, static_cast<int>(left.count()));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

// Bumped when a statement of any connection turned out stale (PgStalePlan):
// every connection deallocates the statements it prepared before and
// prepares them again as it uses them (ForgetStatementsIfStale).
std::atomic<uint64_t> g_statements_generation{0};

// Server notices ("relation already exists, skipping") are not errors and
// nobody reads libpq's default of printing them to stderr.
void IgnoreNotice(void*, const char*) {}

}  // namespace

bool PgStalePlan(std::string_view sqlstate, std::string_view source_function) {
  return sqlstate == "0A000" && source_function == "RevalidateCachedQuery";
}

bool PgConnectionLost(std::string_view sqlstate, bool connection_ok) {
  return !connection_ok || sqlstate.starts_with("08") || sqlstate == "57P01" ||
         sqlstate == "57P02" || sqlstate == "57P03" || sqlstate == "25006";
}

Status PgError(std::string_view sqlstate, std::string_view message, bool connection_ok,
               std::string_view source_function) {
  std::string m(message);
  if (sqlstate.empty()) {
    // libpq failed on its own: the connection is gone or the protocol broke.
    return connection_ok ? Status::Internal("postgresql: " + m)
                         : Status::Unavailable("postgresql connection lost: " + m);
  }
  m = "postgresql " + std::string(sqlstate) + ": " + m;
  if (sqlstate == "40001" || sqlstate == "40P01" || PgStalePlan(sqlstate, source_function)) {
    return Status::Aborted(std::move(m));
  }
  // The connection is lost or the server is going away, or (25006) it is a
  // read-only server, e.g. a demoted primary: PgConnectionLost closes it.
  if (PgConnectionLost(sqlstate, connection_ok)) return Status::Unavailable(std::move(m));
  // The database cannot write now (disk full, out of memory, too many
  // connections, I/O error): the connection itself is fine.
  if (sqlstate.starts_with("53") || sqlstate.starts_with("58")) {
    return Status::Unavailable(std::move(m));
  }
  if (sqlstate == "23505") return Status::Conflict(std::move(m));
  return Status::Internal(std::move(m));
}

PgResult& PgResult::operator=(PgResult&& o) noexcept {
  if (this != &o) {
    if (r_ != nullptr) PQclear(r_);
    r_ = o.r_;
    o.r_ = nullptr;
  }
  return *this;
}

PgResult::~PgResult() {
  if (r_ != nullptr) PQclear(r_);
}

long long PgResult::affected() const {
  const char* n = r_ != nullptr ? PQcmdTuples(r_) : "";
  return *n == '\0' ? 0 : std::atoll(n);
}

std::optional<std::string> PgResult::OptString(int row, int col) const {
  if (IsNull(row, col)) return std::nullopt;
  return String(row, col);
}

int64_t PgResult::Int64(int row, int col) const {
  std::string_view t = Text(row, col);
  int64_t v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);
  return v;
}

std::optional<Instant> PgResult::OptTime(int row, int col) const {
  if (IsNull(row, col)) return std::nullopt;
  return Time(row, col);
}

std::optional<int64_t> PgResult::OptInt64(int row, int col) const {
  if (IsNull(row, col)) return std::nullopt;
  return Int64(row, col);
}

void PgParams::Add(std::string s) {
  owned_.push_back(std::move(s));
  values_.push_back(owned_.back().c_str());
}

namespace {

void AppendArrayElement(std::string& a, std::string_view item) {
  if (a.size() > 1) a += ',';
  a += '"';
  for (char c : item) {
    if (c == '"' || c == '\\') a += '\\';
    a += c;
  }
  a += '"';
}

}  // namespace

void PgParams::AddTextArray(const std::vector<std::string>& items) {
  std::string a = "{";
  for (const std::string& item : items) AppendArrayElement(a, item);
  a += '}';
  Add(std::move(a));
}

void PgParams::AddArray(const std::vector<const char*>& items) {
  size_t bytes = 2;
  for (const char* item : items) bytes += (item != nullptr ? std::strlen(item) : 0) + 4;
  std::string a;
  a.reserve(bytes);
  a += '{';
  for (const char* item : items) {
    if (item != nullptr) {
      AppendArrayElement(a, item);
    } else {
      if (a.size() > 1) a += ',';
      a += "NULL";
    }
  }
  a += '}';
  Add(std::move(a));
}

PgParams PgParams::Owned() const {
  PgParams copy;
  for (const char* v : values_) {
    if (v == nullptr) {
      copy.AddNull();
    } else {
      copy.Add(std::string(v));
    }
  }
  return copy;
}

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& url,
                                                            const PgConnectOptions& options) {
  // The url is expanded by libpq (expand_dbname); the keywords after it
  // override what it says only where it says nothing.
  const char* keywords[] = {"dbname", "application_name", "client_encoding", nullptr};
  const char* values[] = {url.c_str(), "redrive", "UTF8", nullptr};
  PGconn* raw = PQconnectStartParams(keywords, values, /*expand_dbname=*/1);
  if (raw == nullptr) return Status::Unavailable("postgresql: out of memory connecting");
  std::unique_ptr<PgConnection> conn(new PgConnection(raw));
  if (PQstatus(raw) == CONNECTION_BAD) {
    return Status::Unavailable("postgresql: cannot connect: " + Trimmed(PQerrorMessage(raw)));
  }
  // Non-blocking, so the whole attempt (every host of a multi-host url)
  // ends at one deadline with millisecond precision.
  const auto deadline = std::chrono::steady_clock::now() + options.connect_timeout;
  PostgresPollingStatusType poll_status = PGRES_POLLING_WRITING;
  while (poll_status != PGRES_POLLING_OK) {
    if (poll_status == PGRES_POLLING_FAILED) {
      return Status::Unavailable("postgresql: cannot connect: " + Trimmed(PQerrorMessage(raw)));
    }
    short events = poll_status == PGRES_POLLING_READING ? POLLIN : POLLOUT;
    if (!WaitSocket(raw, events, deadline)) {
      return Status::Unavailable("postgresql: cannot connect within " +
                                 std::to_string(options.connect_timeout.count()) + " ms");
    }
    poll_status = PQconnectPoll(raw);
  }
  PQsetNoticeProcessor(raw, IgnoreNotice, nullptr);
  // Durability does not depend on the server's default: a COMMIT returns
  // only once its WAL is flushed. Times are integers, but UTC keeps any
  // timestamp an operator reads consistent. No sequential scan where an
  // index serves (kSessionPlanning).
  REDRIVE_ASSIGN_OR_RETURN(
      PgResult ignored,
      conn->Exec(std::string("SET synchronous_commit = on; SET TIME ZONE 'UTC'; ") +
                 kSessionPlanning));
  return conn;
}

PgConnection::~PgConnection() { PQfinish(conn_); }

bool PgConnection::healthy() const { return !broken_ && PQstatus(conn_) == CONNECTION_OK; }

bool PgConnection::InTransaction() const {
  PGTransactionStatusType t = PQtransactionStatus(conn_);
  return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

void PgConnection::ClearLastError() {
  last_sqlstate_.clear();
  last_error_.clear();
}

std::string PgConnection::ServerVersion() const {
  int v = PQserverVersion(conn_);  // 150018 for 15.18
  return std::to_string(v / 10000) + "." + std::to_string(v % 100);
}

std::string PgConnection::Where() const {
  std::string host = PQhost(conn_) != nullptr ? PQhost(conn_) : "";
  std::string port = PQport(conn_) != nullptr ? PQport(conn_) : "";
  std::string db = PQdb(conn_) != nullptr ? PQdb(conn_) : "";
  return host + ":" + port + "/" + db;
}

Status PgConnection::Check(const PGresult* r) {
  ExecStatusType st = r != nullptr ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK || st == PGRES_EMPTY_QUERY) {
    return Status::Ok();
  }
  const char* state = r != nullptr ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  std::string message = Trimmed(r != nullptr ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
  if (message.empty()) message = Trimmed(PQerrorMessage(conn_));
  bool connection_ok = PQstatus(conn_) == CONNECTION_OK;
  std::string_view sqlstate = state != nullptr ? state : "";
  const char* field = r != nullptr ? PQresultErrorField(r, PG_DIAG_SOURCE_FUNCTION) : nullptr;
  std::string_view function = field != nullptr ? field : "";
  Status status = PgError(sqlstate, message, connection_ok, function);
  if (PgConnectionLost(sqlstate, connection_ok)) broken_ = true;
  if (PgStalePlan(sqlstate, function)) g_statements_generation.fetch_add(1);
  last_sqlstate_ = std::string(sqlstate);
  last_error_ = message;
  return status;
}

Result<PgResult> PgConnection::Exec(const std::string& sql) {
  REDRIVE_RETURN_IF_ERROR(Flush());
  // PQexec returns the last result of a multi-statement string; an error
  // stops the string there, and that error is the last result.
  PgResult r(PQexec(conn_, sql.c_str()));
  REDRIVE_RETURN_IF_ERROR(Check(r.get()));
  return r;
}

Status PgConnection::ForgetStatementsIfStale() {
  const uint64_t now = g_statements_generation.load();
  if (statements_of_ == now) return Status::Ok();
  // A failed transaction takes no command but its end; the next one
  // forgets them.
  if (PQtransactionStatus(conn_) == PQTRANS_INERROR) return Status::Ok();
  if (!prepared_.empty()) {
    PgResult r(PQexec(conn_, "DEALLOCATE ALL"));
    REDRIVE_RETURN_IF_ERROR(Check(r.get()));
    prepared_.clear();
  }
  statements_of_ = now;
  return Status::Ok();
}

Result<const std::string*> PgConnection::Prepared(std::string_view sql) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    std::string name = "r" + std::to_string(prepared_.size());
    std::string text(sql);
    PgResult prep(PQprepare(conn_, name.c_str(), text.c_str(), 0, nullptr));
    REDRIVE_RETURN_IF_ERROR(Check(prep.get()));
    // Session state, not transactional: it survives a rollback.
    it = prepared_.emplace(std::move(text), std::move(name)).first;
  }
  return &it->second;
}

Result<PgResult> PgConnection::ExecPrepared(std::string_view sql, const PgParams& params) {
  if (!deferred_.empty()) {
    REDRIVE_ASSIGN_OR_RETURN(std::vector<PgResult> r, RunWithDeferred({{sql, &params}}));
    return std::move(r.front());
  }
  REDRIVE_RETURN_IF_ERROR(ForgetStatementsIfStale());
  REDRIVE_ASSIGN_OR_RETURN(const std::string* name, Prepared(sql));
  PgResult r(
      PQexecPrepared(conn_, name->c_str(), params.size(), params.values(), nullptr, nullptr, 0));
  REDRIVE_RETURN_IF_ERROR(Check(r.get()));
  return r;
}

void PgConnection::Defer(std::string_view sql, PgParams params) {
  deferred_.emplace_back(sql, std::move(params));
}

Status PgConnection::Flush() {
  if (deferred_.empty()) return Status::Ok();
  return RunWithDeferred({}).status();
}

Result<std::vector<PgResult>> PgConnection::RunWithDeferred(
    const std::vector<std::pair<std::string_view, const PgParams*>>& commands) {
  std::deque<std::pair<std::string_view, PgParams>> deferred;
  deferred.swap(deferred_);
  std::vector<std::pair<std::string_view, const PgParams*>> all;
  all.reserve(deferred.size() + commands.size());
  for (const auto& [sql, params] : deferred) all.emplace_back(sql, &params);
  all.insert(all.end(), commands.begin(), commands.end());
  auto r = RunBatch(all);
  if (!r.ok()) {
    // The guarded writes deferred by PgWriteTx divide by zero when their
    // guard fails (pg_job_sql.h).
    if (r.status().message().find("postgresql 22012:") != std::string::npos) {
      return Status::Conflict("a deferred guarded write found its job changed: " + last_error_);
    }
    return r.status();
  }
  r->erase(r->begin(), r->begin() + static_cast<std::ptrdiff_t>(deferred.size()));
  return r;
}

Result<std::vector<PgResult>> PgConnection::ExecPreparedBatch(
    const std::vector<std::pair<std::string_view, const PgParams*>>& commands) {
  if (!deferred_.empty()) return RunWithDeferred(commands);
  return RunBatch(commands);
}

Result<std::vector<PgResult>> PgConnection::RunBatch(
    const std::vector<std::pair<std::string_view, const PgParams*>>& commands) {
  std::vector<PgResult> out;
  out.reserve(commands.size());
  if (commands.size() <= 1) {
    for (const auto& [sql, params] : commands) {
      REDRIVE_ASSIGN_OR_RETURN(PgResult r, ExecPrepared(sql, *params));
      out.push_back(std::move(r));
    }
    return out;
  }
  for (size_t start = 0; start < commands.size(); start += kMaxPipeline) {
    const size_t end = std::min(commands.size(), start + kMaxPipeline);
    REDRIVE_RETURN_IF_ERROR(Pipeline(commands, start, end, out));
  }
  return out;
}

Status PgConnection::Pipeline(
    const std::vector<std::pair<std::string_view, const PgParams*>>& commands, size_t begin,
    size_t end, std::vector<PgResult>& out) {
  REDRIVE_RETURN_IF_ERROR(ForgetStatementsIfStale());
  std::vector<const std::string*> names;
  names.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    REDRIVE_ASSIGN_OR_RETURN(const std::string* name, Prepared(commands[i].first));
    names.push_back(name);
  }
  auto lost = [&](const char* what) {
    broken_ = true;
    return PgError("", std::string(what) + ": " + PQerrorMessage(conn_), false);
  };
  if (PQenterPipelineMode(conn_) != 1) return lost("cannot enter pipeline mode");
  for (size_t i = begin; i < end; ++i) {
    const PgParams& p = *commands[i].second;
    if (PQsendQueryPrepared(conn_, names[i - begin]->c_str(), p.size(), p.values(), nullptr,
                            nullptr, 0) != 1) {
      return lost("cannot send a pipelined command");
    }
  }
  if (PQpipelineSync(conn_) != 1) return lost("cannot end the pipeline");
  Status first_error;
  for (size_t i = begin; i < end; ++i) {
    PgResult last;
    while (PGresult* r = PQgetResult(conn_)) last = PgResult(r);
    if (last.get() == nullptr) return lost("a pipelined command gave no result");
    if (PQresultStatus(last.get()) == PGRES_PIPELINE_ABORTED) {
      if (first_error.ok()) first_error = Status::Internal("pipeline aborted");
      continue;
    }
    if (Status st = Check(last.get()); !st.ok()) {
      if (first_error.ok()) first_error = st;
      continue;
    }
    out.push_back(std::move(last));
  }
  PgResult sync(PQgetResult(conn_));
  if (sync.get() == nullptr || PQresultStatus(sync.get()) != PGRES_PIPELINE_SYNC) {
    return lost("the pipeline did not end with its sync");
  }
  if (PQexitPipelineMode(conn_) != 1) return lost("cannot leave pipeline mode");
  return first_error;
}

Result<PgResult> PgConnection::ExecParams(const std::string& sql, const PgParams& params) {
  REDRIVE_RETURN_IF_ERROR(Flush());
  PgResult r(PQexecParams(conn_, sql.c_str(), params.size(), nullptr, params.values(), nullptr,
                          nullptr, 0));
  REDRIVE_RETURN_IF_ERROR(Check(r.get()));
  return r;
}

}  // namespace redrive::store::postgres
