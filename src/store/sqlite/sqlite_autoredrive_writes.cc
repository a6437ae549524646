// SqliteWriteTx's auto-redrive writes: thin forwards to autoredrive_sql.
#include "store/sqlite/autoredrive_sql.h"
#include "store/sqlite/sqlite_write_tx.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertAutoredrive(const AutoredriveRecord& rec) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return autoredrive_sql::InsertAutoredrive(conn(), rec);
}

Status SqliteWriteTx::UpdateAutoredrivePolicy(const AutoredrivePolicy& policy) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return autoredrive_sql::UpdateAutoredrivePolicy(conn(), policy);
}

Status SqliteWriteTx::UpdateAutoredriveState(const std::string& queue_name,
                                             const AutoredriveState& state) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return autoredrive_sql::UpdateAutoredriveState(conn(), queue_name, state);
}

Status SqliteWriteTx::DeleteAutoredrive(const std::string& queue_name) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return autoredrive_sql::DeleteAutoredrive(conn(), queue_name);
}

Result<long long> SqliteWriteTx::CountAutoRevivals(const std::vector<std::string>& ids) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return autoredrive_sql::CountAutoRevivals(conn(), ids);
}

}  // namespace redrive::store::sqlite
