// redrive.audit_log, redrive.audit_targets and redrive.operator_requests:
// store.h's ListAudit, GetIdempotencyRecord, InsertAuditEntry,
// DeleteAuditBefore and the *IdempotencyKey* writes, as free functions over
// a PgConnection shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/audit.h"
#include "store/postgres/pg_connection.h"

namespace redrive::store::postgres::audit_sql {

Result<std::vector<AuditEntry>> ListAudit(PgConnection& conn, const AuditFilter& f);
// The entry and its targets in one statement.
Status InsertAuditEntry(PgConnection& conn, const AuditEntry& entry);
Result<long long> DeleteAuditBefore(PgConnection& conn, Instant before, int limit);

Result<std::optional<IdempotencyRecord>> GetIdempotencyRecord(PgConnection& conn,
                                                              const std::string& scope,
                                                              const std::string& key);
Result<bool> ReserveIdempotencyKey(PgConnection& conn, const IdempotencyRecord& record);
Status CompleteIdempotencyKey(PgConnection& conn, const IdempotencyRecord& record);
Status DeleteIdempotencyKey(PgConnection& conn, const std::string& scope, const std::string& key);
Result<long long> DeleteExpiredIdempotencyKeys(PgConnection& conn, Instant now, int limit);

}  // namespace redrive::store::postgres::audit_sql
