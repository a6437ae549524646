// PgWriteTx's token exchange operations: thin forwards to token_sql.
#include "store/postgres/pg_token_sql.h"
#include "store/postgres/pg_write_tx.h"

namespace redrive::store::postgres {

Result<std::string> PgWriteTx::EnsureTokenSecret(const std::string& candidate) {
  return token_sql::EnsureTokenSecret(*held, candidate);
}

Result<long long> PgWriteTx::InsertRefreshToken(const RefreshToken& token,
                                                size_t max_live_per_key) {
  return token_sql::InsertRefreshToken(*held, token, max_live_per_key);
}

Result<std::optional<RefreshToken>> PgWriteTx::EndRefreshToken(const std::string& token_hash,
                                                               Instant now,
                                                               std::string_view reason) {
  return token_sql::EndRefreshToken(*held, token_hash, now, reason);
}

Result<long long> PgWriteTx::EndRefreshTokensOfKey(const std::string& key_id, Instant now,
                                                   std::string_view reason) {
  return token_sql::EndRefreshTokensOfKey(*held, key_id, now, reason);
}

Result<long long> PgWriteTx::DeleteOldRefreshTokens(Instant before, int limit) {
  return token_sql::DeleteOldRefreshTokens(*held, before, limit);
}

}  // namespace redrive::store::postgres
