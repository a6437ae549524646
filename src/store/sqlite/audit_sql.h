// The operator audit log (audit_log, audit_targets) and the Idempotency-Key
// records of operator routes (operator_requests): store.h's ListAudit,
// GetIdempotencyRecord, InsertAuditEntry, DeleteAuditBefore and the
// *IdempotencyKey* writes, as free functions over a Connection shared by the
// read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/audit.h"
#include "store/sqlite/connection.h"

namespace redrive::store::sqlite::audit_sql {

Result<std::vector<AuditEntry>> ListAudit(Connection& conn, const AuditFilter& f);
Status InsertAuditEntry(Connection& conn, const AuditEntry& entry);
Result<long long> DeleteAuditBefore(Connection& conn, Instant before, int limit);

Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(Connection& conn,
                                                              const std::string& scope,
                                                              const std::string& key);
Result<bool> ReserveIdempotencyKey(Connection& conn, const IdempotencyRecord& record);
Status CompleteIdempotencyKey(Connection& conn, const IdempotencyRecord& record);
Status DeleteIdempotencyKey(Connection& conn, const std::string& scope, const std::string& key);
Result<long long> DeleteExpiredIdempotencyKeys(Connection& conn, Instant now, int limit);

}  // namespace redrive::store::sqlite::audit_sql
