// SqliteWriteTx's bulk-operation writes: thin forwards to operation_sql.
#include "store/sqlite/operation_sql.h"
#include "store/sqlite/sqlite_write_tx.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertOperation(const OperationRecord& op, size_t max_unfinished) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return operation_sql::InsertOperation(conn(), op, max_unfinished);
}

Status SqliteWriteTx::UpdateOperation(const Operation& op) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return operation_sql::UpdateOperation(conn(), op);
}

Result<std::vector<OperationRecord>> SqliteWriteTx::SelectDueOperations(Instant now, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return operation_sql::SelectDueOperations(conn(), now, limit);
}

Result<SelectedJobs> SqliteWriteTx::SelectJobsAfter(const JobSelection& sel) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return operation_sql::SelectJobsAfter(conn(), sel);
}

Result<long long> SqliteWriteTx::DeleteFinishedOperationsBefore(Instant before, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return operation_sql::DeleteFinishedOperationsBefore(conn(), before, limit);
}

}  // namespace redrive::store::sqlite
