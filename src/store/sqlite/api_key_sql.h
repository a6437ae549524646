// The api_keys table (stored API keys, core/api_key.h) and api_keys_version:
// their SQL, row mapping and store operations, as free functions over a
// Connection shared by the read and write transactions.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <string>
#include <vector>

#include "core/api_key.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite::api_key_sql {

// Migration 12's schema.
extern const char kSchema[];

Result<std::vector<StoredApiKey>> ListApiKeys(Connection& conn);
Result<StoredApiKey> GetApiKey(Connection& conn, const std::string& id);
Result<int64_t> ApiKeysVersion(Connection& conn);

// Inside a write transaction.
Status InsertApiKey(Connection& conn, const StoredApiKey& key);
Status UpdateApiKey(Connection& conn, const StoredApiKey& key);
Status RecordApiKeyUse(Connection& conn, const std::vector<ApiKeyUse>& uses);

}  // namespace redrive::store::sqlite::api_key_sql
