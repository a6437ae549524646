#include "store/postgres/pg_audit_sql.h"

namespace redrive::store::postgres::audit_sql {
namespace {

// Targets come back as one text, one per line (no target holds a line break:
// ids, queue names).
constexpr char kList[] =
    "SELECT id, at, actor, role, client_address, method, route, action, selector, count,"
    " status, request_id, reason,"
    " (SELECT string_agg(target, E'\\n' ORDER BY position) FROM redrive.audit_targets t"
    "   WHERE t.entry_id = a.id)"
    " FROM redrive.audit_log a"
    " WHERE ($1::text IS NULL OR actor = $1) AND ($2::text IS NULL OR action = $2)"
    " AND ($3::text IS NULL OR id IN"
    "   (SELECT entry_id FROM redrive.audit_targets WHERE target = $3::text))"
    " AND ($4::bigint IS NULL OR at >= $4) AND ($5::bigint IS NULL OR at < $5)"
    " AND ($6::bigint IS NULL OR (at, id) < ($6, $7::text))"
    " ORDER BY at DESC, id DESC LIMIT $8";
// The entry, then its targets numbered from 0, in one statement.
constexpr char kInsert[] =
    "WITH e AS (INSERT INTO redrive.audit_log (id, at, actor, role, client_address, method,"
    " route, action, selector, count, status, request_id, reason)"
    " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id)"
    " INSERT INTO redrive.audit_targets (entry_id, position, target)"
    " SELECT e.id, t.ord - 1, t.target FROM e, unnest($14::text[]) WITH ORDINALITY AS t(target, "
    "ord)";
// Targets go with their entry (ON DELETE CASCADE).
constexpr char kDeleteBefore[] =
    "DELETE FROM redrive.audit_log WHERE id IN (SELECT id FROM redrive.audit_log"
    " WHERE at < $1 ORDER BY at, id LIMIT $2 FOR UPDATE SKIP LOCKED)";

constexpr char kGetRecord[] =
    "SELECT scope, key, fingerprint, created_at, expires_at, response_status,"
    " response_content_type, response_headers, response_body"
    " FROM redrive.operator_requests WHERE scope = $1 AND key = $2";
// An expired record is replaced; a live one is left alone (no row changed,
// but locked until this transaction ends).
constexpr char kReserve[] =
    "INSERT INTO redrive.operator_requests AS r (scope, key, fingerprint, created_at, expires_at)"
    " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (scope, key) DO UPDATE SET"
    " fingerprint = excluded.fingerprint, created_at = excluded.created_at,"
    " expires_at = excluded.expires_at, response_status = NULL, response_content_type = '',"
    " response_headers = '', response_body = ''"
    " WHERE r.expires_at <= excluded.created_at";
constexpr char kComplete[] =
    "UPDATE redrive.operator_requests SET response_status = $4, response_content_type = $5,"
    " response_headers = $6, response_body = $7"
    " WHERE scope = $1 AND key = $2 AND fingerprint = $3";
constexpr char kDeleteRecord[] =
    "DELETE FROM redrive.operator_requests WHERE scope = $1 AND key = $2";
constexpr char kDeleteExpired[] =
    "DELETE FROM redrive.operator_requests WHERE (scope, key) IN (SELECT scope, key"
    " FROM redrive.operator_requests WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2"
    " FOR UPDATE SKIP LOCKED)";

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

AuditEntry ReadEntry(const PgResult& r, int i) {
  AuditEntry e;
  e.id = r.String(i, 0);
  e.at = r.Time(i, 1);
  e.actor = r.String(i, 2);
  e.role = r.String(i, 3);
  e.client_address = r.String(i, 4);
  e.method = r.String(i, 5);
  e.route = r.String(i, 6);
  e.action = r.String(i, 7);
  e.selector = r.OptString(i, 8);
  e.count = r.OptInt64(i, 9);
  e.status = r.Int(i, 10);
  e.request_id = r.String(i, 11);
  e.reason = r.OptString(i, 12);
  if (!r.IsNull(i, 13)) e.targets = SplitLines(r.Text(i, 13));
  return e;
}

}  // namespace

Result<std::vector<AuditEntry>> ListAudit(PgConnection& conn, const AuditFilter& f) {
  PgParams p;
  p.AddRef(f.actor);
  p.AddRef(f.action);
  p.AddRef(f.target);
  p.Add(f.since);
  p.Add(f.until);
  if (f.after) {
    p.Add(f.after->at);
    p.AddRef(f.after->id);
  } else {
    p.AddNull();
    p.AddNull();
  }
  p.Add(f.limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kList, p));
  std::vector<AuditEntry> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadEntry(r, i));
  return out;
}

Status InsertAuditEntry(PgConnection& conn, const AuditEntry& e) {
  PgParams p;
  p.AddRef(e.id);
  p.Add(e.at);
  p.AddRef(e.actor);
  p.AddRef(e.role);
  p.AddRef(e.client_address);
  p.AddRef(e.method);
  p.AddRef(e.route);
  p.AddRef(e.action);
  p.AddRef(e.selector);
  p.Add(e.count);
  p.Add(e.status);
  p.AddRef(e.request_id);
  p.AddRef(e.reason);
  p.AddTextArray(e.targets);
  return conn.ExecPrepared(kInsert, p).status();
}

Result<long long> DeleteAuditBefore(PgConnection& conn, Instant before, int limit) {
  PgParams p;
  p.Add(before);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteBefore, p));
  return r.affected();
}

Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(PgConnection& conn,
                                                              const std::string& scope,
                                                              const std::string& key) {
  PgParams p;
  p.AddRef(scope);
  p.AddRef(key);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kGetRecord, p));
  if (r.rows() == 0) return std::optional<IdempotencyRecord>();
  IdempotencyRecord rec;
  rec.scope = r.String(0, 0);
  rec.key = r.String(0, 1);
  rec.fingerprint = r.String(0, 2);
  rec.created_at = r.Time(0, 3);
  rec.expires_at = r.Time(0, 4);
  if (!r.IsNull(0, 5)) rec.response_status = r.Int(0, 5);
  rec.response_content_type = r.String(0, 6);
  rec.response_headers = DecodeHeaderLines(r.Text(0, 7));
  rec.response_body = r.String(0, 8);
  return std::optional<IdempotencyRecord>(std::move(rec));
}

Result<bool> ReserveIdempotencyKey(PgConnection& conn, const IdempotencyRecord& rec) {
  PgParams p;
  p.AddRef(rec.scope);
  p.AddRef(rec.key);
  p.AddRef(rec.fingerprint);
  p.Add(rec.created_at);
  p.Add(rec.expires_at);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kReserve, p));
  return r.affected() == 1;
}

Status CompleteIdempotencyKey(PgConnection& conn, const IdempotencyRecord& rec) {
  if (!rec.response_status) return Status::Internal("CompleteIdempotencyKey without a response");
  PgParams p;
  p.AddRef(rec.scope);
  p.AddRef(rec.key);
  p.AddRef(rec.fingerprint);
  p.Add(*rec.response_status);
  p.AddRef(rec.response_content_type);
  p.Add(EncodeHeaderLines(rec.response_headers));
  p.AddRef(rec.response_body);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kComplete, p));
  if (r.affected() == 0) return Status::NotFound("no reserved idempotency key " + rec.key);
  return Status::Ok();
}

Status DeleteIdempotencyKey(PgConnection& conn, const std::string& scope, const std::string& key) {
  PgParams p;
  p.AddRef(scope);
  p.AddRef(key);
  return conn.ExecPrepared(kDeleteRecord, p).status();
}

Result<long long> DeleteExpiredIdempotencyKeys(PgConnection& conn, Instant now, int limit) {
  PgParams p;
  p.Add(now);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteExpired, p));
  return r.affected();
}

}  // namespace redrive::store::postgres::audit_sql
