// SqliteWriteTx's stored API key operations: thin forwards to api_key_sql.
#include "store/sqlite/api_key_sql.h"
#include "store/sqlite/sqlite_write_tx.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertApiKey(const StoredApiKey& key) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return api_key_sql::InsertApiKey(conn(), key);
}

Status SqliteWriteTx::UpdateApiKey(const StoredApiKey& key) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return api_key_sql::UpdateApiKey(conn(), key);
}

Status SqliteWriteTx::RecordApiKeyUse(const std::vector<ApiKeyUse>& uses) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return api_key_sql::RecordApiKeyUse(conn(), uses);
}

}  // namespace redrive::store::sqlite
