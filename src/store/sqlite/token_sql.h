// The token exchange's tables (core/refresh_token.h): token_secret (the one
// secret access tokens are signed with) and refresh_tokens; their SQL, row
// mapping and store operations, as free functions over a Connection shared
// by the read and write transactions.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/refresh_token.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite::token_sql {

// Migration 13's schema.
extern const char kSchema[];

Result<std::optional<std::string>> GetTokenSecret(Connection& conn);
Result<std::vector<RefreshToken>> ListRefreshTokens(Connection& conn, const std::string& key_id);
Result<std::optional<RefreshToken>> GetRefreshToken(Connection& conn,
                                                    const std::string& token_hash);

// Inside a write transaction (SQLite has one writer: every read-then-write
// below is exact).
Result<std::string> EnsureTokenSecret(Connection& conn, const std::string& candidate);
Result<long long> InsertRefreshToken(Connection& conn, const RefreshToken& token,
                                     size_t max_live_per_key);
Result<std::optional<RefreshToken>> EndRefreshToken(Connection& conn, const std::string& token_hash,
                                                    Instant now, std::string_view reason);
Result<long long> EndRefreshTokensOfKey(Connection& conn, const std::string& key_id, Instant now,
                                        std::string_view reason);
Result<long long> DeleteOldRefreshTokens(Connection& conn, Instant before, int limit);

}  // namespace redrive::store::sqlite::token_sql
