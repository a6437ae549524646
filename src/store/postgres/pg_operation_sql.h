// redrive.operations (bulk operations, core/operation.h): its SQL, row
// mapping and the store operations on it, as free functions over a
// connection shared by the read and the write transaction. With `lock` (in
// a write transaction) GetOperation locks its row FOR UPDATE.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres::operation_sql {

// PostgreSQL migrations: the table and its indexes (20); the move action
// and the index of finished operations (22).
extern const char kSchema[];
extern const char kMoveSchema[];

// Reads.
Result<OperationRecord> GetOperation(PgConnection& conn, const std::string& id, bool lock);
Result<std::vector<OperationRecord>> ListOperations(PgConnection& conn, int limit, int offset);
Result<long long> CountSelectedJobs(PgConnection& conn, const JobSelection& sel);
Result<std::optional<Instant>> NextOperationDue(PgConnection& conn);

// Writes (inside a write transaction). InsertOperation takes an advisory
// lock between its count and its insert, so nodes creating operations at
// once never pass the limit together.
Status InsertOperation(PgConnection& conn, const OperationRecord& op, size_t max_unfinished);
Status UpdateOperation(PgConnection& conn, const Operation& op);
// Locked FOR UPDATE SKIP LOCKED: two nodes never run one operation's batch at once.
Result<std::vector<OperationRecord>> SelectDueOperations(PgConnection& conn, Instant now,
                                                         int limit);
// At most `limit` finished operations that finished before `before`, oldest
// first (rows another transaction holds are left for the next pass).
Result<long long> DeleteFinishedOperationsBefore(PgConnection& conn, Instant before, int limit);

}  // namespace redrive::store::postgres::operation_sql
