#include "store/postgres/pg_api_key_sql.h"

#include "core/comma_list.h"

namespace redrive::store::postgres::api_key_sql {

// Version 13: stored API keys. The secret is kept only as its SHA-256;
// queues are the scope's names joined by commas (queue names hold none).
// api_keys_version is moved by the store's own writes of a key (not by use
// bookkeeping), so every node tells in one read whether its cache is stale.
const char kSchema[] = R"sql(
CREATE TABLE redrive.api_keys (
  id           text COLLATE "C" PRIMARY KEY,
  name         text NOT NULL,
  role         text NOT NULL CHECK (role IN ('admin','worker','viewer')),
  queues       text NOT NULL,
  secret_hash  text COLLATE "C" NOT NULL UNIQUE,
  prefix       text NOT NULL,
  active       boolean NOT NULL,
  created_at   bigint NOT NULL,
  updated_at   bigint NOT NULL,
  last_used_at bigint,
  expires_at   bigint
);
CREATE TABLE redrive.api_keys_version (
  id      integer PRIMARY KEY CHECK (id = 1),
  version bigint NOT NULL
);
INSERT INTO redrive.api_keys_version (id, version) VALUES (1, 1);
)sql";

namespace {

#define REDRIVE_PG_API_KEY_COLUMNS                                                \
  "id, name, role, queues, secret_hash, prefix, active, created_at, updated_at, " \
  "last_used_at, expires_at"

constexpr char kList[] =
    "SELECT " REDRIVE_PG_API_KEY_COLUMNS " FROM redrive.api_keys ORDER BY created_at, id";
constexpr char kGet[] = "SELECT " REDRIVE_PG_API_KEY_COLUMNS " FROM redrive.api_keys WHERE id = $1";
constexpr char kGetForUpdate[] =
    "SELECT " REDRIVE_PG_API_KEY_COLUMNS " FROM redrive.api_keys WHERE id = $1 FOR UPDATE";
constexpr char kInsert[] = "INSERT INTO redrive.api_keys (" REDRIVE_PG_API_KEY_COLUMNS
                           ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)";
constexpr char kUpdate[] =
    "UPDATE redrive.api_keys SET name = $2, role = $3, queues = $4, active = $5, "
    "updated_at = $6, expires_at = $7 WHERE id = $1";
constexpr char kVersion[] = "SELECT version FROM redrive.api_keys_version WHERE id = 1";
constexpr char kBumpVersion[] =
    "UPDATE redrive.api_keys_version SET version = version + 1 WHERE id = 1";
constexpr char kUse[] =
    "UPDATE redrive.api_keys AS k SET last_used_at = u.at"
    " FROM unnest($1::text[], $2::text[]::bigint[]) AS u(id, at)"
    " WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)";

StoredApiKey ReadKey(const PgResult& r, int row) {
  StoredApiKey k;
  k.id = r.String(row, 0);
  k.name = r.String(row, 1);
  k.role = r.String(row, 2);
  k.queues = SplitCommaList(r.Text(row, 3));
  k.secret_hash = r.String(row, 4);
  k.prefix = r.String(row, 5);
  k.active = r.Bool(row, 6);
  k.created_at = r.Time(row, 7);
  k.updated_at = r.Time(row, 8);
  k.last_used_at = r.OptTime(row, 9);
  k.expires_at = r.OptTime(row, 10);
  return k;
}

Status BumpVersion(PgConnection& conn) { return conn.ExecPrepared(kBumpVersion, {}).status(); }

}  // namespace

Result<std::vector<StoredApiKey>> ListApiKeys(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kList, {}));
  std::vector<StoredApiKey> out;
  out.reserve(r.rows());
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadKey(r, i));
  return out;
}

Result<StoredApiKey> GetApiKey(PgConnection& conn, const std::string& id, bool locking) {
  PgParams p;
  p.AddRef(id);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(locking ? kGetForUpdate : kGet, p));
  if (r.rows() == 0) return Status::NotFound("API key " + id + " not found");
  return ReadKey(r, 0);
}

Result<int64_t> ApiKeysVersion(PgConnection& conn) {
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kVersion, {}));
  if (r.rows() != 1) return Status::Internal("redrive.api_keys_version has no row");
  return r.Int64(0, 0);
}

Status InsertApiKey(PgConnection& conn, const StoredApiKey& key) {
  PgParams p;
  p.AddRef(key.id);
  p.AddRef(key.name);
  p.AddRef(key.role);
  p.Add(JoinCommaList(key.queues));
  p.AddRef(key.secret_hash);
  p.AddRef(key.prefix);
  p.Add(key.active);
  p.Add(key.created_at);
  p.Add(key.updated_at);
  p.Add(key.last_used_at);
  p.Add(key.expires_at);
  REDRIVE_RETURN_IF_ERROR(conn.ExecPrepared(kInsert, p).status());
  return BumpVersion(conn);
}

Status UpdateApiKey(PgConnection& conn, const StoredApiKey& key) {
  PgParams p;
  p.AddRef(key.id);
  p.AddRef(key.name);
  p.AddRef(key.role);
  p.Add(JoinCommaList(key.queues));
  p.Add(key.active);
  p.Add(key.updated_at);
  p.Add(key.expires_at);
  REDRIVE_ASSIGN_OR_RETURN(PgResult r, conn.ExecPrepared(kUpdate, p));
  if (r.affected() == 0) return Status::NotFound("API key " + key.id + " not found");
  return BumpVersion(conn);
}

Status RecordApiKeyUse(PgConnection& conn, const std::vector<ApiKeyUse>& uses) {
  if (uses.empty()) return Status::Ok();
  std::vector<std::string> ids;
  std::vector<std::string> ats;
  for (const ApiKeyUse& use : uses) {
    ids.push_back(use.id);
    ats.push_back(std::to_string(ToMicros(use.at)));
  }
  PgParams p;
  p.AddTextArray(ids);
  p.AddTextArray(ats);
  return conn.ExecPrepared(kUse, p).status();
}

}  // namespace redrive::store::postgres::api_key_sql
