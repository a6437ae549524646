#include "store/sqlite/audit_sql.h"

#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::audit_sql {
namespace {

// Targets come back as one text, one per line (no target holds a line break:
// ids, queue names).
constexpr char kList[] =
    "SELECT id, at, actor, role, client_address, method, route, action, selector, count,"
    " status, request_id, reason,"
    " (SELECT group_concat(target, char(10)) FROM"
    "   (SELECT target FROM audit_targets t WHERE t.entry_id = audit_log.id ORDER BY position))"
    " FROM audit_log"
    " WHERE (?1 IS NULL OR actor = ?1) AND (?2 IS NULL OR action = ?2)"
    " AND (?3 IS NULL OR id IN (SELECT entry_id FROM audit_targets WHERE target = ?3))"
    " AND (?4 IS NULL OR at >= ?4) AND (?5 IS NULL OR at < ?5)"
    " AND (?6 IS NULL OR at < ?6 OR (at = ?6 AND id < ?7))"
    " ORDER BY at DESC, id DESC LIMIT ?8";
constexpr char kInsert[] =
    "INSERT INTO audit_log (id, at, actor, role, client_address, method, route, action,"
    " selector, count, status, request_id, reason)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
constexpr char kInsertTarget[] =
    "INSERT INTO audit_targets (entry_id, position, target) VALUES (?1, ?2, ?3)";
// Targets go with their entry (ON DELETE CASCADE).
constexpr char kDeleteBefore[] =
    "DELETE FROM audit_log WHERE id IN"
    " (SELECT id FROM audit_log WHERE at < ?1 ORDER BY at, id LIMIT ?2)";

constexpr char kGetRecord[] =
    "SELECT scope, key, fingerprint, created_at, expires_at, response_status,"
    " response_content_type, response_headers, response_body"
    " FROM operator_requests WHERE scope = ?1 AND key = ?2";
// An expired record is replaced; a live one is left alone (no row changed).
constexpr char kReserve[] =
    "INSERT INTO operator_requests (scope, key, fingerprint, created_at, expires_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (scope, key) DO UPDATE SET"
    " fingerprint = excluded.fingerprint, created_at = excluded.created_at,"
    " expires_at = excluded.expires_at, response_status = NULL, response_content_type = '',"
    " response_headers = '', response_body = ''"
    " WHERE operator_requests.expires_at <= excluded.created_at";
constexpr char kComplete[] =
    "UPDATE operator_requests SET response_status = ?4, response_content_type = ?5,"
    " response_headers = ?6, response_body = ?7"
    " WHERE scope = ?1 AND key = ?2 AND fingerprint = ?3";
constexpr char kDeleteRecord[] = "DELETE FROM operator_requests WHERE scope = ?1 AND key = ?2";
constexpr char kDeleteExpired[] =
    "DELETE FROM operator_requests WHERE (scope, key) IN (SELECT scope, key"
    " FROM operator_requests WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2)";

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    out.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

AuditEntry ReadEntry(const Statement& s) {
  AuditEntry e;
  e.id = s.String(0);
  e.at = s.Time(1);
  e.actor = s.String(2);
  e.role = s.String(3);
  e.client_address = s.String(4);
  e.method = s.String(5);
  e.route = s.String(6);
  e.action = s.String(7);
  e.selector = s.OptString(8);
  if (!s.IsNull(9)) e.count = s.Int64(9);
  e.status = s.Int(10);
  e.request_id = s.String(11);
  e.reason = s.OptString(12);
  if (!s.IsNull(13)) e.targets = SplitLines(s.Text(13));
  return e;
}

}  // namespace

Result<std::vector<AuditEntry>> ListAudit(Connection& conn, const AuditFilter& f) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kList));
  stmt.Bind(1, f.actor);
  stmt.Bind(2, f.action);
  stmt.Bind(3, f.target);
  stmt.Bind(4, f.since);
  stmt.Bind(5, f.until);
  if (f.after) {
    stmt.Bind(6, f.after->at);
    stmt.Bind(7, f.after->id);
  } else {
    stmt.BindNull(6);
    stmt.BindNull(7);
  }
  stmt.Bind(8, f.limit);
  return CollectRows<AuditEntry>(stmt, ReadEntry);
}

Status InsertAuditEntry(Connection& conn, const AuditEntry& e) {
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsert));
    stmt.Bind(1, e.id);
    stmt.Bind(2, e.at);
    stmt.Bind(3, e.actor);
    stmt.Bind(4, e.role);
    stmt.Bind(5, e.client_address);
    stmt.Bind(6, e.method);
    stmt.Bind(7, e.route);
    stmt.Bind(8, e.action);
    stmt.Bind(9, e.selector);
    stmt.Bind(10, e.count);
    stmt.Bind(11, e.status);
    stmt.Bind(12, e.request_id);
    stmt.Bind(13, e.reason);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  for (size_t i = 0; i < e.targets.size(); ++i) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertTarget));
    stmt.Bind(1, e.id);
    stmt.Bind(2, static_cast<int64_t>(i));
    stmt.Bind(3, e.targets[i]);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  return Status::Ok();
}

Result<long long> DeleteAuditBefore(Connection& conn, Instant before, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteBefore));
  stmt.Bind(1, before);
  stmt.Bind(2, limit);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(Connection& conn,
                                                              const std::string& scope,
                                                              const std::string& key) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGetRecord));
  stmt.Bind(1, scope);
  stmt.Bind(2, key);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<IdempotencyRecord>();
  IdempotencyRecord r;
  r.scope = stmt.String(0);
  r.key = stmt.String(1);
  r.fingerprint = stmt.String(2);
  r.created_at = stmt.Time(3);
  r.expires_at = stmt.Time(4);
  if (!stmt.IsNull(5)) r.response_status = stmt.Int(5);
  r.response_content_type = stmt.String(6);
  r.response_headers = DecodeHeaderLines(stmt.Text(7));
  r.response_body = stmt.String(8);
  return std::optional<IdempotencyRecord>(std::move(r));
}

Result<bool> ReserveIdempotencyKey(Connection& conn, const IdempotencyRecord& r) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kReserve));
  stmt.Bind(1, r.scope);
  stmt.Bind(2, r.key);
  stmt.Bind(3, r.fingerprint);
  stmt.Bind(4, r.created_at);
  stmt.Bind(5, r.expires_at);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes() == 1;
}

Status CompleteIdempotencyKey(Connection& conn, const IdempotencyRecord& r) {
  if (!r.response_status) return Status::Internal("CompleteIdempotencyKey without a response");
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kComplete));
  stmt.Bind(1, r.scope);
  stmt.Bind(2, r.key);
  stmt.Bind(3, r.fingerprint);
  stmt.Bind(4, *r.response_status);
  stmt.Bind(5, r.response_content_type);
  stmt.BindCopy(6, EncodeHeaderLines(r.response_headers));
  stmt.Bind(7, r.response_body);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  if (stmt.Changes() == 0) return Status::NotFound("no reserved idempotency key " + r.key);
  return Status::Ok();
}

Status DeleteIdempotencyKey(Connection& conn, const std::string& scope, const std::string& key) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteRecord));
  stmt.Bind(1, scope);
  stmt.Bind(2, key);
  return stmt.Run();
}

Result<long long> DeleteExpiredIdempotencyKeys(Connection& conn, Instant now, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteExpired));
  stmt.Bind(1, now);
  stmt.Bind(2, limit);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

}  // namespace redrive::store::sqlite::audit_sql
