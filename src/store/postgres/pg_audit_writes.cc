// PgWriteTx's audit log and Idempotency-Key operations: thin forwards to
// audit_sql.
#include "store/postgres/pg_audit_sql.h"
#include "store/postgres/pg_write_tx.h"

namespace redrive::store::postgres {

Status PgWriteTx::InsertAuditEntry(const AuditEntry& entry) {
  return audit_sql::InsertAuditEntry(*held, entry);
}

Result<long long> PgWriteTx::DeleteAuditBefore(Instant before, int limit) {
  return audit_sql::DeleteAuditBefore(*held, before, limit);
}

Result<bool> PgWriteTx::ReserveIdempotencyKey(const IdempotencyRecord& record) {
  return audit_sql::ReserveIdempotencyKey(*held, record);
}

Status PgWriteTx::CompleteIdempotencyKey(const IdempotencyRecord& record) {
  return audit_sql::CompleteIdempotencyKey(*held, record);
}

Status PgWriteTx::DeleteIdempotencyKey(const std::string& scope, const std::string& key) {
  return audit_sql::DeleteIdempotencyKey(*held, scope, key);
}

Result<long long> PgWriteTx::DeleteExpiredIdempotencyKeys(Instant now, int limit) {
  return audit_sql::DeleteExpiredIdempotencyKeys(*held, now, limit);
}

}  // namespace redrive::store::postgres
