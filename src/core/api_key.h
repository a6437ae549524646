// API keys kept as data in the store (besides the bootstrap keys of
// --api-key and REDRIVE_API_KEYS, which live only in the process's
// configuration). Plain data: the secret itself is never stored, only its
// hash, so a copy of the database grants nothing. The API makes the secret,
// hashes it and shows it once (api/api_key_handlers.cc); the engine writes
// the record; every node keeps an in-memory map from hash to key
// (api/auth_stored_keys.h), so authenticating costs no store read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace redrive {

// Bounds on what a client can make the store hold.
inline constexpr size_t kMaxStoredApiKeys = 1000;
inline constexpr size_t kMaxApiKeyNameBytes = 100;
inline constexpr size_t kMaxApiKeyQueues = 100;

// What every stored key's secret starts with, so it is recognised (by
// people, and by secret scanners) as a Redrive key. Spooled's SDKs refuse a
// key that does not start with sk_ or sp_ before they send anything, so it
// starts with Spooled's sk_. (Keys made before with rdk_ keep working: a key
// is found by its hash.)
inline constexpr std::string_view kApiKeySecretPrefix = "sk_rdk_";

// "admin", "worker" or "viewer" (the API's roles, api/auth.h).
bool IsApiKeyRole(std::string_view role);

struct StoredApiKey {
  std::string id;    // UUIDv7
  std::string name;  // 1..kMaxApiKeyNameBytes; names the key in logs and the audit log
  std::string role;  // IsApiKeyRole
  // The queues a worker key may enqueue into, claim from and read jobs of;
  // empty: every queue.
  std::vector<std::string> queues;
  std::string secret_hash;  // lower-case hex SHA-256 of the secret
  std::string prefix;       // the secret's first characters, for telling keys apart
  bool active = true;       // false: revoked (DELETE, or PUT is_active=false)
  Instant created_at{};
  Instant updated_at{};
  std::optional<Instant> last_used_at;  // flushed from memory now and then
  std::optional<Instant> expires_at;    // refused from then on
};

// Only worker keys may be limited to queues (the routes a worker uses are
// the ones a scope can be checked on): VALIDATION naming "queues" otherwise.
Status CheckApiKeyScope(const StoredApiKey& key);

// The fields PUT /api-keys/{id} may change; unset fields are kept.
struct ApiKeyPatch {
  std::optional<std::string> name;
  std::optional<std::string> role;
  std::optional<std::vector<std::string>> queues;
  std::optional<bool> active;
};

// One key's latest use, as remembered in memory (StoredKeys::NoteUse).
struct ApiKeyUse {
  std::string id;
  Instant at;
};

// Every stored key and the version they were read at (ReadTx::ApiKeysVersion).
struct ApiKeySnapshot {
  int64_t version = 0;
  std::vector<StoredApiKey> keys;
};

}  // namespace redrive
