// The operations table (bulk operations, core/operation.h): its SQL, row
// mapping and the store operations on it, as free functions over a
// Connection shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite::operation_sql {

// SQLite migrations: the table and its indexes (19); the move action and
// the index of finished operations (21).
extern const char kSchema[];
extern const char kMoveSchema[];

// Reads.
Result<OperationRecord> GetOperation(Connection& conn, const std::string& id);
Result<std::vector<OperationRecord>> ListOperations(Connection& conn, int limit, int offset);
Result<long long> CountSelectedJobs(Connection& conn, const JobSelection& sel);
Result<std::optional<Instant>> NextOperationDue(Connection& conn);

// Writes (inside a write transaction).
Status InsertOperation(Connection& conn, const OperationRecord& op, size_t max_unfinished);
Status UpdateOperation(Connection& conn, const Operation& op);
Result<std::vector<OperationRecord>> SelectDueOperations(Connection& conn, Instant now, int limit);
Result<SelectedJobs> SelectJobsAfter(Connection& conn, const JobSelection& sel);
Result<long long> DeleteFinishedOperationsBefore(Connection& conn, Instant before, int limit);

}  // namespace redrive::store::sqlite::operation_sql
