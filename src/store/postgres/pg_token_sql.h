// redrive.token_secret (the one secret access tokens are signed with) and
// redrive.refresh_tokens (core/refresh_token.h): their SQL, row mapping and
// store operations, as free functions over a PgConnection shared by the read
// and write transactions.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/refresh_token.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres::token_sql {

// Migration 14's schema.
extern const char kSchema[];

Result<std::optional<std::string>> GetTokenSecret(PgConnection& conn);
Result<std::vector<RefreshToken>> ListRefreshTokens(PgConnection& conn, const std::string& key_id);
Result<std::optional<RefreshToken>> GetRefreshToken(PgConnection& conn,
                                                    const std::string& token_hash);

// Inside a write transaction (READ COMMITTED; see each for its locking).
Result<std::string> EnsureTokenSecret(PgConnection& conn, const std::string& candidate);
Result<long long> InsertRefreshToken(PgConnection& conn, const RefreshToken& token,
                                     size_t max_live_per_key);
Result<std::optional<RefreshToken>> EndRefreshToken(PgConnection& conn,
                                                    const std::string& token_hash, Instant now,
                                                    std::string_view reason);
Result<long long> EndRefreshTokensOfKey(PgConnection& conn, const std::string& key_id, Instant now,
                                        std::string_view reason);
Result<long long> DeleteOldRefreshTokens(PgConnection& conn, Instant before, int limit);

}  // namespace redrive::store::postgres::token_sql
