// Authenticating with access tokens (access_token.h), and what every node
// needs for it: the token secret (TokenAuthority) and the identity of the
// key a token names.
//
// Key identity. A stored key is named by its id. A bootstrap key (--api-key,
// REDRIVE_API_KEYS) has none, and its secret must not be readable from a
// token, so it is named "bootstrap:" + 32 hex digits of HMAC-SHA256(token
// secret, key): the same on every node and across restarts (the secret is
// the store's), unguessable without the secret, and gone when the key is
// removed from the configuration (its tokens are refused from then on).
//
// Freshness. A token is checked against this node's key cache on every use
// (auth_stored_keys.h), so a revoked or expired key's tokens stop at once
// here and within one refresh interval on the other nodes.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/access_token.h"
#include "api/api.h"
#include "api/auth.h"
#include "api/auth_stored_keys.h"
#include "core/status.h"

namespace redrive::engine {
class Engine;
}

namespace redrive::api {

// This node's copy of the store's token secret. Unset until it was read
// (at start-up and by the key refresh while unset) or, at the first login
// of the cluster, created (EnsureTokenSecret). Thread-safe.
class TokenAuthority {
 public:
  std::shared_ptr<const std::string> secret() const;
  // The store holds one secret, so every call passes the same one; the
  // first is kept.
  void SetSecret(std::string secret);

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const std::string> secret_;
};

// Reads the store's secret into `tokens` if it holds none yet (one read;
// nothing is created). Blocks like LoadStoredKeys (auth_key_refresh.h).
Status LoadTokenSecret(engine::Engine& engine, TokenAuthority& tokens);

// A new secret for the store: 64 hex digits, 256 bits from the OS.
std::string NewTokenSecret();

// "bootstrap:" + 32 hex digits of HMAC-SHA256(secret, key.key).
std::string BootstrapKeyId(const ApiKey& key, std::string_view secret);
bool IsBootstrapKeyId(std::string_view key_id);

// The caller that the key named `key_id` (a stored key's id or a
// BootstrapKeyId) is at `now`. UNAUTHORIZED, saying why, when no such key
// is configured or stored, or it was revoked or has expired.
Result<Caller> CallerOfKeyId(std::string_view key_id, const std::vector<ApiKey>& keys,
                             const StoredKeys& stored, std::string_view secret, Instant now);

// The caller presenting access token `token` at `now`: its signature and
// expiry, then its key as CallerOfKeyId (the role and queues are the key's
// now, not the token's). UNAUTHORIZED, saying why, otherwise.
Result<Caller> AuthenticateAccessToken(std::string_view token, const std::vector<ApiKey>& keys,
                                       StoredKeys& stored, const TokenAuthority& tokens,
                                       Instant now);

}  // namespace redrive::api
