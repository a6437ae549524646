#include "store/postgres/pg_token_sql.h"

namespace redrive::store::postgres::token_sql {

// Version 14: the token exchange. token_secret holds at most one row, so
// two nodes can only ever store one secret. A refresh token is kept as its
// SHA-256; usable_until is when it stopped (or stops) being usable — its
// expiry, or its end if that came first — which pruning walks.
const char kSchema[] = R"sql(
CREATE TABLE redrive.token_secret (
  id     integer PRIMARY KEY CHECK (id = 1),
  secret text NOT NULL CHECK (length(secret) >= 32)
);
CREATE TABLE redrive.refresh_tokens (
  token_hash   text COLLATE "C" PRIMARY KEY,
  key_id       text COLLATE "C" NOT NULL,
  created_at   bigint NOT NULL,
  expires_at   bigint NOT NULL,
  ended_at     bigint,
  end_reason   text CHECK (end_reason IN ('refreshed','logout','key_revoked','evicted')),
  usable_until bigint NOT NULL,
  CHECK ((ended_at IS NULL) = (end_reason IS NULL)),
  CHECK (usable_until <= expires_at)
);
CREATE INDEX refresh_tokens_by_key ON redrive.refresh_tokens (key_id, created_at);
CREATE INDEX refresh_tokens_by_usable_until ON redrive.refresh_tokens (usable_until);
)sql";

namespace {

#define REDRIVE_PG_REFRESH_TOKEN_COLUMNS \
  "token_hash, key_id, created_at, expires_at, ended_at, end_reason"

constexpr char kGetSecret[] = "SELECT secret FROM redrive.token_secret WHERE id = 1";
// A second node inserting at once waits on the primary key for the first's
// commit, then inserts nothing; the read that follows (a new statement, so a
// new READ COMMITTED snapshot) sees the first's secret.
constexpr char kInsertSecret[] =
    "INSERT INTO redrive.token_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING";
constexpr char kList[] = "SELECT " REDRIVE_PG_REFRESH_TOKEN_COLUMNS
                         " FROM redrive.refresh_tokens WHERE key_id = $1"
                         " ORDER BY created_at, token_hash";
constexpr char kGet[] =
    "SELECT " REDRIVE_PG_REFRESH_TOKEN_COLUMNS " FROM redrive.refresh_tokens WHERE token_hash = $1";
// FOR UPDATE: of two transactions ending one token, the second waits here
// and then reads the row as the first left it (ended).
constexpr char kGetForUpdate[] = "SELECT " REDRIVE_PG_REFRESH_TOKEN_COLUMNS
                                 " FROM redrive.refresh_tokens WHERE token_hash = $1 FOR UPDATE";
// One key's issues take turns, so the cap below is exact across nodes.
constexpr char kLockKey[] =
    "SELECT pg_advisory_xact_lock(hashtextextended('redrive.refresh_tokens:' || $1::text, 0))";
constexpr char kInsert[] = "INSERT INTO redrive.refresh_tokens (" REDRIVE_PG_REFRESH_TOKEN_COLUMNS
                           ", usable_until) VALUES ($1, $2, $3, $4, NULL, NULL, $4)";
// The key's live tokens but the newest $3 (the one just inserted counts).
constexpr char kEvict[] =
    "UPDATE redrive.refresh_tokens SET ended_at = $2, end_reason = 'evicted', usable_until = $2"
    " WHERE token_hash IN (SELECT token_hash FROM redrive.refresh_tokens"
    "  WHERE key_id = $1 AND ended_at IS NULL AND expires_at > $2"
    "  ORDER BY created_at DESC, token_hash DESC OFFSET $3)";
constexpr char kEnd[] =
    "UPDATE redrive.refresh_tokens SET ended_at = $2, end_reason = $3, usable_until = $2"
    " WHERE token_hash = $1 AND ended_at IS NULL AND expires_at > $2";
constexpr char kEndOfKey[] =
    "UPDATE redrive.refresh_tokens SET ended_at = $2, end_reason = $3, usable_until = $2"
    " WHERE key_id = $1 AND ended_at IS NULL AND expires_at > $2";
constexpr char kDeleteOld[] =
    "DELETE FROM redrive.refresh_tokens WHERE token_hash IN (SELECT token_hash"
    " FROM redrive.refresh_tokens WHERE usable_until < $1 ORDER BY usable_until LIMIT $2"
    " FOR UPDATE SKIP LOCKED)";

RefreshToken ReadToken(const PgResult& r, int row) {
  RefreshToken t;
  t.token_hash = r.String(row, 0);
  t.key_id = r.String(row, 1);
  t.created_at = r.Time(row, 2);
  t.expires_at = r.Time(row, 3);
  t.ended_at = r.OptTime(row, 4);
  t.end_reason = r.OptString(row, 5).value_or("");
  return t;
}

}  // namespace

Result<std::optional<std::string>> GetTokenSecret(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kGetSecret, {}));
  if (r.rows() == 0) return std::optional<std::string>();
  return std::optional<std::string>(r.String(0, 0));
}

Result<std::vector<RefreshToken>> ListRefreshTokens(PgConnection& conn, const std::string& key_id) {
  PgParams p;
  p.AddRef(key_id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kList, p));
  std::vector<RefreshToken> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadToken(r, i));
  return out;
}

Result<std::optional<RefreshToken>> GetRefreshToken(PgConnection& conn,
                                                    const std::string& token_hash) {
  PgParams p;
  p.AddRef(token_hash);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kGet, p));
  if (r.rows() == 0) return std::optional<RefreshToken>();
  return std::optional<RefreshToken>(ReadToken(r, 0));
}

Result<std::string> EnsureTokenSecret(PgConnection& conn, const std::string& candidate) {
  PgParams p;
  p.AddRef(candidate);
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kInsertSecret, p).status());
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> stored, GetTokenSecret(conn));
  if (!stored) return Status::Internal("redrive.token_secret has no row after its insert");
  return *stored;
}

Result<long long> InsertRefreshToken(PgConnection& conn, const RefreshToken& token,
                                     size_t max_live_per_key) {
  PgParams key;
  key.AddRef(token.key_id);
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kLockKey, key).status());
  PgParams p;
  p.AddRef(token.token_hash);
  p.AddRef(token.key_id);
  p.Add(token.created_at);
  p.Add(token.expires_at);
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kInsert, p).status());
  PgParams evict;
  evict.AddRef(token.key_id);
  evict.Add(token.created_at);
  evict.Add(static_cast<int64_t>(max_live_per_key));
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kEvict, evict));
  return r.affected();
}

Result<std::optional<RefreshToken>> EndRefreshToken(PgConnection& conn,
                                                    const std::string& token_hash, Instant now,
                                                    std::string_view reason) {
  PgParams get;
  get.AddRef(token_hash);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kGetForUpdate, get));
  if (r.rows() == 0) return std::optional<RefreshToken>();
  RefreshToken was = ReadToken(r, 0);
  if (!was.LiveAt(now)) return std::optional<RefreshToken>(std::move(was));
  PgParams p;
  p.AddRef(token_hash);
  p.Add(now);
  p.Add(std::string(reason));
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kEnd, p).status());
  return std::optional<RefreshToken>(std::move(was));
}

Result<long long> EndRefreshTokensOfKey(PgConnection& conn, const std::string& key_id, Instant now,
                                        std::string_view reason) {
  PgParams p;
  p.AddRef(key_id);
  p.Add(now);
  p.Add(std::string(reason));
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kEndOfKey, p));
  return r.affected();
}

Result<long long> DeleteOldRefreshTokens(PgConnection& conn, Instant before, int limit) {
  PgParams p;
  p.Add(before);
  p.Add(limit);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kDeleteOld, p));
  return r.affected();
}

}  // namespace redrive::store::postgres::token_sql
