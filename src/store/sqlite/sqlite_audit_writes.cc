// SqliteWriteTx's audit log and Idempotency-Key operations: thin forwards to
// audit_sql.
#include "store/sqlite/audit_sql.h"
#include "store/sqlite/sqlite_write_tx.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertAuditEntry(const AuditEntry& entry) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return audit_sql::InsertAuditEntry(conn(), entry);
}

Result<long long> SqliteWriteTx::DeleteAuditBefore(Instant before, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return audit_sql::DeleteAuditBefore(conn(), before, limit);
}

Result<bool> SqliteWriteTx::ReserveIdempotencyKey(const IdempotencyRecord& record) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return audit_sql::ReserveIdempotencyKey(conn(), record);
}

Status SqliteWriteTx::CompleteIdempotencyKey(const IdempotencyRecord& record) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return audit_sql::CompleteIdempotencyKey(conn(), record);
}

Status SqliteWriteTx::DeleteIdempotencyKey(const std::string& scope, const std::string& key) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return audit_sql::DeleteIdempotencyKey(conn(), scope, key);
}

Result<long long> SqliteWriteTx::DeleteExpiredIdempotencyKeys(Instant now, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return audit_sql::DeleteExpiredIdempotencyKeys(conn(), now, limit);
}

}  // namespace redrive::store::sqlite
