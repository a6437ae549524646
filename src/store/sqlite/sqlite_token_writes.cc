// SqliteWriteTx's token exchange operations: thin forwards to token_sql.
#include "store/sqlite/sqlite_write_tx.h"
#include "store/sqlite/token_sql.h"

namespace redrive::store::sqlite {

Result<std::string> SqliteWriteTx::EnsureTokenSecret(const std::string& candidate) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return token_sql::EnsureTokenSecret(conn(), candidate);
}

Result<long long> SqliteWriteTx::InsertRefreshToken(const RefreshToken& token,
                                                    size_t max_live_per_key) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return token_sql::InsertRefreshToken(conn(), token, max_live_per_key);
}

Result<std::optional<RefreshToken>> SqliteWriteTx::EndRefreshToken(const std::string& token_hash,
                                                                   Instant now,
                                                                   std::string_view reason) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return token_sql::EndRefreshToken(conn(), token_hash, now, reason);
}

Result<long long> SqliteWriteTx::EndRefreshTokensOfKey(const std::string& key_id, Instant now,
                                                       std::string_view reason) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return token_sql::EndRefreshTokensOfKey(conn(), key_id, now, reason);
}

Result<long long> SqliteWriteTx::DeleteOldRefreshTokens(Instant before, int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return token_sql::DeleteOldRefreshTokens(conn(), before, limit);
}

}  // namespace redrive::store::sqlite
