// redrive.api_keys (stored API keys, core/api_key.h) and
// redrive.api_keys_version: their SQL, row mapping and store operations, as
// free functions over a PgConnection shared by the read and write
// transactions.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <string>
#include <vector>

#include "core/api_key.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres::api_key_sql {

// Migration 13's schema.
extern const char kSchema[];

Result<std::vector<StoredApiKey>> ListApiKeys(PgConnection& conn);
// `locking`: FOR UPDATE (a write transaction's read-modify-write).
Result<StoredApiKey> GetApiKey(PgConnection& conn, const std::string& id, bool locking);
Result<int64_t> ApiKeysVersion(PgConnection& conn);

// Inside a write transaction.
Status InsertApiKey(PgConnection& conn, const StoredApiKey& key);
Status UpdateApiKey(PgConnection& conn, const StoredApiKey& key);
// One statement for all of `uses`.
Status RecordApiKeyUse(PgConnection& conn, const std::vector<ApiKeyUse>& uses);

}  // namespace redrive::store::postgres::api_key_sql
