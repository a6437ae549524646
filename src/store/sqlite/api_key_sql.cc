#include "store/sqlite/api_key_sql.h"

#include "core/comma_list.h"
#include "store/sqlite/query_util.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite::api_key_sql {

// Version 12: stored API keys. The secret is kept only as its SHA-256;
// queues are the scope's names joined by commas (queue names hold none).
// api_keys_version is moved by the store's own writes of a key (not by use
// bookkeeping), so every node tells in one read whether its cache is stale.
const char kSchema[] = R"sql(
CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  role         TEXT NOT NULL CHECK (role IN ('admin','worker','viewer')),
  queues       TEXT NOT NULL,
  secret_hash  TEXT NOT NULL UNIQUE,
  prefix       TEXT NOT NULL,
  active       INTEGER NOT NULL CHECK (active IN (0, 1)),
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  last_used_at INTEGER,
  expires_at   INTEGER
) STRICT;
CREATE TABLE api_keys_version (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  version INTEGER NOT NULL
) STRICT;
INSERT INTO api_keys_version (id, version) VALUES (1, 1);
)sql";

namespace {

#define REDRIVE_API_KEY_COLUMNS                                                   \
  "id, name, role, queues, secret_hash, prefix, active, created_at, updated_at, " \
  "last_used_at, expires_at"

constexpr char kList[] = "SELECT " REDRIVE_API_KEY_COLUMNS " FROM api_keys ORDER BY created_at, id";
constexpr char kGet[] = "SELECT " REDRIVE_API_KEY_COLUMNS " FROM api_keys WHERE id = ?1";
constexpr char kInsert[] = "INSERT INTO api_keys (" REDRIVE_API_KEY_COLUMNS
                           ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)";
constexpr char kUpdate[] =
    "UPDATE api_keys SET name = ?2, role = ?3, queues = ?4, active = ?7, updated_at = ?9, "
    "expires_at = ?11 WHERE id = ?1";
constexpr char kVersion[] = "SELECT version FROM api_keys_version WHERE id = 1";
constexpr char kBumpVersion[] = "UPDATE api_keys_version SET version = version + 1 WHERE id = 1";
constexpr char kUse[] =
    "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1"
    " AND (last_used_at IS NULL OR last_used_at < ?2)";

StoredApiKey ReadKey(const Statement& s) {
  StoredApiKey k;
  k.id = s.String(0);
  k.name = s.String(1);
  k.role = s.String(2);
  k.queues = SplitCommaList(s.Text(3));
  k.secret_hash = s.String(4);
  k.prefix = s.String(5);
  k.active = s.Int(6) != 0;
  k.created_at = s.Time(7);
  k.updated_at = s.Time(8);
  k.last_used_at = s.OptTime(9);
  k.expires_at = s.OptTime(10);
  return k;
}

// `queues` is the joined scope, kept alive by the caller.
void BindKey(Statement& s, const StoredApiKey& k, const std::string& queues) {
  s.Bind(1, k.id);
  s.Bind(2, k.name);
  s.Bind(3, k.role);
  s.Bind(4, queues);
  s.Bind(5, k.secret_hash);
  s.Bind(6, k.prefix);
  s.Bind(7, k.active ? 1 : 0);
  s.Bind(8, k.created_at);
  s.Bind(9, k.updated_at);
  s.Bind(10, k.last_used_at);
  s.Bind(11, k.expires_at);
}

Status BumpVersion(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kBumpVersion));
  return stmt.Run();
}

}  // namespace

Result<std::vector<StoredApiKey>> ListApiKeys(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kList));
  return CollectRows<StoredApiKey>(stmt, ReadKey);
}

Result<StoredApiKey> GetApiKey(Connection& conn, const std::string& id) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kGet));
  stmt.Bind(1, id);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::NotFound("API key " + id + " not found");
  return ReadKey(stmt);
}

Result<int64_t> ApiKeysVersion(Connection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kVersion));
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return Status::Internal("api_keys_version has no row");
  return stmt.Int64(0);
}

Status InsertApiKey(Connection& conn, const StoredApiKey& key) {
  const std::string queues = JoinCommaList(key.queues);
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kInsert));
    BindKey(stmt, key, queues);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  return BumpVersion(conn);
}

Status UpdateApiKey(Connection& conn, const StoredApiKey& key) {
  const std::string queues = JoinCommaList(key.queues);
  {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kUpdate));
    BindKey(stmt, key, queues);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
    if (stmt.Changes() == 0) return Status::NotFound("API key " + key.id + " not found");
  }
  return BumpVersion(conn);
}

Status RecordApiKeyUse(Connection& conn, const std::vector<ApiKeyUse>& uses) {
  for (const ApiKeyUse& use : uses) {
    REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(kUse));
    stmt.Bind(1, use.id);
    stmt.Bind(2, use.at);
    REDRIVE_RETURN_IF_ERROR(stmt.Run());
  }
  return Status::Ok();
}

}  // namespace redrive::store::sqlite::api_key_sql
