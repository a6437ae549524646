// PgWriteTx's auto-redrive writes: thin forwards to autoredrive_sql.
#include "store/postgres/pg_autoredrive_sql.h"
#include "store/postgres/pg_write_tx.h"

namespace redrive::store::postgres {

Status PgWriteTx::InsertAutoredrive(const AutoredriveRecord& rec) {
  return autoredrive_sql::InsertAutoredrive(*held, rec);
}

Status PgWriteTx::UpdateAutoredrivePolicy(const AutoredrivePolicy& policy) {
  return autoredrive_sql::UpdateAutoredrivePolicy(*held, policy);
}

Status PgWriteTx::UpdateAutoredriveState(const std::string& queue_name,
                                         const AutoredriveState& state) {
  return autoredrive_sql::UpdateAutoredriveState(*held, queue_name, state);
}

Status PgWriteTx::DeleteAutoredrive(const std::string& queue_name) {
  return autoredrive_sql::DeleteAutoredrive(*held, queue_name);
}

Result<long long> PgWriteTx::CountAutoRevivals(const std::vector<std::string>& ids) {
  return autoredrive_sql::CountAutoRevivals(*held, ids);
}

}  // namespace redrive::store::postgres
