#include "store/postgres/pg_leadership.h"

#include <spdlog/spdlog.h>

namespace redrive::store::postgres {

PgLeadership::PgLeadership(std::string url, std::string node_id, PgLeadershipOptions options)
    : url_(std::move(url)), node_id_(std::move(node_id)), options_(options) {}

PgLeadership::~PgLeadership() {
  std::lock_guard<std::mutex> lock(mu_);
  // Unlock before closing: a closed session's locks are released when its
  // backend gets round to ending, not when PQfinish returns, so another node
  // asking right after would still find them taken.
  if (conn_ && conn_->healthy() && present_)  // duties are held only with it
    (void)conn_->Exec("SELECT pg_advisory_unlock_all()");
  DropSession();
}

void PgLeadership::DropSession() {
  conn_.reset();  // closing the session releases its locks
  held_.clear();
  present_ = false;
}

Status PgLeadership::BePresent() {
  if (present_) return Status::Ok();
  PgParams params;
  params.Add(static_cast<int64_t>(kNodeLockSpace));
  REDRIVE_RETURN_IF_ERROR(
      conn_->ExecPrepared("SELECT pg_advisory_lock_shared($1::int, 0)", params).status());
  present_ = true;
  return Status::Ok();
}

Status PgLeadership::EnsureSession(Instant now) {
  if (conn_ && conn_->healthy() && now - checked_at_ < options_.check_interval) {
    return BePresent();
  }
  if (conn_) {
    if (conn_->healthy() && conn_->Exec("SELECT 1").ok()) {
      checked_at_ = now;
      return BePresent();
    }
    if (!held_.empty()) {
      spdlog::warn("duty leadership of {}: session lost, giving up {} duties", node_id_,
                   held_.size());
    }
    DropSession();
  }
  auto conn = PgConnection::Connect(url_, options_.connect);
  if (!conn.ok()) return conn.status();
  conn_ = std::move(*conn);
  REDRIVE_RETURN_IF_ERROR(
      conn_->Exec("SET application_name = 'redrive-duties " + node_id_.substr(0, 40) + "'")
          .status());
  checked_at_ = now;
  return BePresent();
}

Result<bool> PgLeadership::Hold(const std::string& duty, Instant now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Status st = EnsureSession(now); !st.ok()) {
    DropSession();
    return st;
  }
  if (held_.count(duty)) return true;
  PgParams params;
  params.Add(static_cast<int64_t>(kDutyLockSpace));
  params.AddRef(duty);
  auto r = conn_->ExecPrepared("SELECT pg_try_advisory_lock($1::int, hashtext($2))", params);
  if (!r.ok()) {
    DropSession();
    return r.status();
  }
  if (r->rows() == 1 && r->Bool(0, 0)) {
    held_.insert(duty);  // the engine's Duties logs the change, once
    return true;
  }
  return false;
}

void PgLeadership::ReleaseAll() {
  std::lock_guard<std::mutex> lock(mu_);
  if (conn_ && conn_->healthy() && present_) {  // duties are held only with it
    if (!conn_->Exec("SELECT pg_advisory_unlock_all()").ok()) DropSession();
  }
  held_.clear();
  present_ = false;
}

Result<int> PgLeadership::LiveNodes(Instant now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Status st = EnsureSession(now); !st.ok()) {
    DropSession();
    return st;
  }
  // The two-key form of an advisory lock shows its keys as classid and
  // objid, with objsubid 2; advisory locks belong to one database.
  PgParams params;
  params.Add(static_cast<int64_t>(kNodeLockSpace));
  auto r = conn_->ExecPrepared(
      "SELECT count(*) FROM pg_catalog.pg_locks"
      " WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid"
      " AND objid = 0 AND objsubid = 2 AND database = (SELECT oid FROM"
      " pg_catalog.pg_database WHERE datname = current_database())",
      params);
  if (!r.ok()) {
    DropSession();
    return r.status();
  }
  return std::max(1, r->Int(0, 0));  // this node's lock among them
}

}  // namespace redrive::store::postgres
