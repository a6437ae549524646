#include "store/sqlite/sqlite_leadership.h"

#include <utility>
#include <vector>

#include "store/sqlite/statement.h"

namespace redrive::store::sqlite {
namespace {

constexpr char kReadLease[] = "SELECT node_id, expires_at FROM duty_leases WHERE duty = ?1";
// Takes the duty when there is no row, renews it when the row is ours, takes
// it over when the row expired; otherwise changes nothing (0 rows).
constexpr char kTakeOrRenew[] =
    "INSERT INTO duty_leases (duty, node_id, expires_at) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (duty) DO UPDATE SET node_id = excluded.node_id,"
    " expires_at = excluded.expires_at"
    " WHERE duty_leases.node_id = excluded.node_id OR duty_leases.expires_at <= ?4";
// Renews a duty that is still this node's.
constexpr char kRenewOwn[] =
    "UPDATE duty_leases SET expires_at = ?3 WHERE duty = ?1 AND node_id = ?2";
constexpr char kRelease[] = "DELETE FROM duty_leases WHERE node_id = ?1";

}  // namespace

Result<std::unique_ptr<SqliteLeadership>> SqliteLeadership::Open(const std::string& path,
                                                                 const ConnectionOptions& options,
                                                                 std::string node_id, Micros ttl,
                                                                 CommitHealth& health) {
  if (node_id.empty()) return Status::Internal("duty leadership needs a node id");
  if (ttl <= Micros::zero()) return Status::Internal("duty lease ttl must be positive");
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<Connection> conn, Connection::Open(path, options));
  return std::unique_ptr<SqliteLeadership>(
      new SqliteLeadership(std::move(conn), std::move(node_id), ttl, health));
}

SqliteLeadership::~SqliteLeadership() { ReleaseAll(); }

Result<bool> SqliteLeadership::Hold(const std::string& duty, Instant now) {
  std::lock_guard<std::mutex> lock(mu_);
  DutyUse& use = duties_[duty];
  use.asked_at = now;
  // Renewed a moment ago: the row still says ours for at least 2/3 ttl.
  if (use.renewed_at && now >= *use.renewed_at && now < *use.renewed_at + ttl_ / 3) return true;
  Result<bool> held = HeldByOther(duty, now);
  if (held.ok()) held = *held ? false : TakeOrRenew(duty, now);
  if (!held.ok() || !*held) use.renewed_at.reset();
  return held;
}

Result<bool> SqliteLeadership::HeldByOther(const std::string& duty, Instant now) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn_->Prepare(kReadLease));
  stmt.Bind(1, duty);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  return row && stmt.Text(0) != node_id_ && stmt.Time(1) > now;
}

Result<bool> SqliteLeadership::TakeOrRenew(const std::string& duty, Instant now) {
  // IMMEDIATE: the write lock first, so the read in the upsert's WHERE and
  // its write see the same row (another node's take-over waits for us).
  REDRIVE_RETURN_IF_ERROR(health_.CheckWritable());
  auto record = [&](const Status& st) {
    const char* file = sqlite3_db_filename(conn_->db(), "main");
    return health_.Record(sqlite3_extended_errcode(conn_->db()), file != nullptr ? file : "",
                          st.message());
  };
  if (Status st = conn_->Exec("BEGIN IMMEDIATE"); !st.ok()) return record(st);
  auto rollback = [&](Status why) -> Result<bool> {
    if (conn_->InTransaction()) conn_->Exec("ROLLBACK");
    return why;
  };
  const Instant expires_at = now + ttl_;
  long long changes = 0;
  {
    Result<Statement> stmt = conn_->Prepare(kTakeOrRenew);
    if (!stmt.ok()) return rollback(stmt.status());
    stmt->Bind(1, duty);
    stmt->Bind(2, node_id_);
    stmt->Bind(3, expires_at);
    stmt->Bind(4, now);
    if (Status st = stmt->Run(); !st.ok()) return rollback(st);
    changes = stmt->Changes();
  }
  // The other duties this node holds and still runs go along (the top of
  // sqlite_leadership.h); what is no longer its own stays as it is.
  std::vector<std::pair<std::string, bool>> others;
  for (const auto& [other, use] : duties_) {
    if (other == duty || !use.renewed_at || now >= *use.renewed_at + ttl_ ||
        use.asked_at + ttl_ / 3 <= now) {
      continue;
    }
    Result<Statement> stmt = conn_->Prepare(kRenewOwn);
    if (!stmt.ok()) return rollback(stmt.status());
    stmt->Bind(1, other);
    stmt->Bind(2, node_id_);
    stmt->Bind(3, expires_at);
    if (Status st = stmt->Run(); !st.ok()) return rollback(st);
    others.emplace_back(other, stmt->Changes() == 1);
  }
  if (Status st = conn_->Exec("COMMIT"); !st.ok()) return rollback(record(st));
  // Only a commit that wrote shows the disk takes writes again.
  if (changes == 1) {
    health_.Record(SQLITE_OK, "", "");
    duties_[duty].renewed_at = now;
  }
  for (const auto& [other, renewed] : others) {
    duties_[other].renewed_at = renewed ? std::optional<Instant>(now) : std::nullopt;
  }
  return changes == 1;
}

void SqliteLeadership::ReleaseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  duties_.clear();
  Result<Statement> stmt = conn_->Prepare(kRelease);
  if (!stmt.ok()) return;
  stmt->Bind(1, node_id_);
  (void)stmt->Run();
}

}  // namespace redrive::store::sqlite
