#include "store/sqlite/token_sql.h"

#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::token_sql {

// Version 13: the token exchange. token_secret holds at most one row, so
// two writers can only ever store one secret. A refresh token is kept as its
// SHA-256; usable_until is when it stopped (or stops) being usable — its
// expiry, or its end if that came first — which pruning walks.
const char kSchema[] = R"sql(
CREATE TABLE token_secret (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  secret TEXT NOT NULL CHECK (length(secret) >= 32)
) STRICT;
CREATE TABLE refresh_tokens (
  token_hash   TEXT PRIMARY KEY,
  key_id       TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  expires_at   INTEGER NOT NULL,
  ended_at     INTEGER,
  end_reason   TEXT CHECK (end_reason IN ('refreshed','logout','key_revoked','evicted')),
  usable_until INTEGER NOT NULL,
  CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
  CHECK (usable_until <= expires_at)
) STRICT, WITHOUT ROWID;
CREATE INDEX refresh_tokens_by_key ON refresh_tokens (key_id, created_at);
CREATE INDEX refresh_tokens_by_usable_until ON refresh_tokens (usable_until);
)sql";

namespace {

#define REDRIVE_REFRESH_TOKEN_COLUMNS \
  "token_hash, key_id, created_at, expires_at, ended_at, end_reason"

constexpr char kGetSecret[] = "SELECT secret FROM token_secret WHERE id = 1";
constexpr char kInsertSecret[] = "INSERT OR IGNORE INTO token_secret (id, secret) VALUES (1, ?1)";
constexpr char kList[] = "SELECT " REDRIVE_REFRESH_TOKEN_COLUMNS
                         " FROM refresh_tokens WHERE key_id = ?1 ORDER BY created_at, token_hash";
constexpr char kGet[] =
    "SELECT " REDRIVE_REFRESH_TOKEN_COLUMNS " FROM refresh_tokens WHERE token_hash = ?1";
constexpr char kInsert[] = "INSERT INTO refresh_tokens (" REDRIVE_REFRESH_TOKEN_COLUMNS
                           ", usable_until) VALUES (?1, ?2, ?3, ?4, NULL, NULL, ?4)";
// The key's live tokens but the newest `?3` (the one just inserted counts).
constexpr char kEvict[] =
    "UPDATE refresh_tokens SET ended_at = ?2, end_reason = 'evicted', usable_until = ?2"
    " WHERE token_hash IN (SELECT token_hash FROM refresh_tokens"
    "  WHERE key_id = ?1 AND ended_at IS NULL AND expires_at > ?2"
    "  ORDER BY created_at DESC, token_hash DESC LIMIT -1 OFFSET ?3)";
constexpr char kEnd[] =
    "UPDATE refresh_tokens SET ended_at = ?2, end_reason = ?3, usable_until = ?2"
    " WHERE token_hash = ?1 AND ended_at IS NULL AND expires_at > ?2";
constexpr char kEndOfKey[] =
    "UPDATE refresh_tokens SET ended_at = ?2, end_reason = ?3, usable_until = ?2"
    " WHERE key_id = ?1 AND ended_at IS NULL AND expires_at > ?2";
constexpr char kDeleteOld[] =
    "DELETE FROM refresh_tokens WHERE token_hash IN (SELECT token_hash FROM refresh_tokens"
    " WHERE usable_until < ?1 ORDER BY usable_until LIMIT ?2)";

RefreshToken ReadToken(const Statement& s) {
  RefreshToken t;
  t.token_hash = s.String(0);
  t.key_id = s.String(1);
  t.created_at = s.Time(2);
  t.expires_at = s.Time(3);
  t.ended_at = s.OptTime(4);
  t.end_reason = s.OptString(5).value_or("");
  return t;
}

}  // namespace

Result<std::optional<std::string>> GetTokenSecret(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGetSecret));
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(stmt.String(0));
}

Result<std::vector<RefreshToken>> ListRefreshTokens(Connection& conn, const std::string& key_id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kList));
  stmt.Bind(1, key_id);
  return CollectRows<RefreshToken>(stmt, ReadToken);
}

Result<std::optional<RefreshToken>> GetRefreshToken(Connection& conn,
                                                    const std::string& token_hash) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGet));
  stmt.Bind(1, token_hash);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<RefreshToken>();
  return std::optional<RefreshToken>(ReadToken(stmt));
}

Result<std::string> EnsureTokenSecret(Connection& conn, const std::string& candidate) {
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsertSecret));
    stmt.Bind(1, candidate);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> stored, GetTokenSecret(conn));
  if (!stored) return Status::Internal("token_secret has no row after its insert");
  return *stored;
}

Result<long long> InsertRefreshToken(Connection& conn, const RefreshToken& token,
                                     size_t max_live_per_key) {
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsert));
    stmt.Bind(1, token.token_hash);
    stmt.Bind(2, token.key_id);
    stmt.Bind(3, token.created_at);
    stmt.Bind(4, token.expires_at);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kEvict));
  stmt.Bind(1, token.key_id);
  stmt.Bind(2, token.created_at);
  stmt.Bind(3, static_cast<int64_t>(max_live_per_key));
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

Result<std::optional<RefreshToken>> EndRefreshToken(Connection& conn, const std::string& token_hash,
                                                    Instant now, std::string_view reason) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<RefreshToken> was, GetRefreshToken(conn, token_hash));
  if (!was || !was->LiveAt(now)) return was;
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kEnd));
  stmt.Bind(1, token_hash);
  stmt.Bind(2, now);
  stmt.BindCopy(3, reason);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return was;
}

Result<long long> EndRefreshTokensOfKey(Connection& conn, const std::string& key_id, Instant now,
                                        std::string_view reason) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kEndOfKey));
  stmt.Bind(1, key_id);
  stmt.Bind(2, now);
  stmt.BindCopy(3, reason);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

Result<long long> DeleteOldRefreshTokens(Connection& conn, Instant before, int limit) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kDeleteOld));
  stmt.Bind(1, before);
  stmt.Bind(2, limit);
  REDRIVE_RETURN_IF_ERROR(stmt.Run());
  return stmt.Changes();
}

}  // namespace redrive::store::sqlite::token_sql
