// PgWriteTx's stored API key operations: thin forwards to api_key_sql.
#include "store/postgres/pg_api_key_sql.h"
#include "store/postgres/pg_write_tx.h"

namespace redrive::store::postgres {

Status PgWriteTx::InsertApiKey(const StoredApiKey& key) {
  return api_key_sql::InsertApiKey(*held, key);
}

Status PgWriteTx::UpdateApiKey(const StoredApiKey& key) {
  return api_key_sql::UpdateApiKey(*held, key);
}

Status PgWriteTx::RecordApiKeyUse(const std::vector<ApiKeyUse>& uses) {
  return api_key_sql::RecordApiKeyUse(*held, uses);
}

}  // namespace redrive::store::postgres
