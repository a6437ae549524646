// API keys and roles: who may call which route. Keys are bootstrap keys
// (--api-key, REDRIVE_API_KEYS: ApiOptions::keys) or stored keys (created
// through /api/v1/api-keys, cached per node: auth_stored_keys.h). Either
// may be exchanged for access tokens (POST /api/v1/auth/login; token_auth.h),
// which act as their key.
//   admin  — everything;
//   worker — enqueue, bulk, claim, job heartbeat/complete/fail/ack,
//            workers/*, and reading one job (GET /jobs/{id});
//   viewer — GET routes only, with payload and result left out.
// With no keys at all — no bootstrap key, and the store never held one —
// every caller is admin (the server refuses to listen on a non-loopback
// address then, unless told to). Once a stored key exists (revoked ones
// count), keys are required.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/access_token.h"
#include "api/api.h"
#include "api/auth_stored_keys.h"
#include "api/http_types.h"
#include "core/queue_scope.h"
#include "core/status.h"

namespace redrive::api {

// Who may call a route, as a bit set; admins may call every route.
enum Access : unsigned {
  kAdminOnly = 0,
  kWorkers = 1u << 0,
  kViewers = 1u << 1,
  kPublic = 1u << 2,  // no key needed (health checks)
  // With kPublic: a key is optional, but one that is presented must be valid
  // (and its failures count like any other; GET /api/v1/me).
  kOptionalKey = 1u << 3,
};

const char* RoleName(Role role);  // "admin", "worker", "viewer"

// The role of the request's "Authorization: Bearer KEY". UNAUTHORIZED when
// keys are configured and the header is missing, malformed or names no key.
Result<Role> Authenticate(const Request& request, const std::vector<ApiKey>& keys);
// The key of the request's "Authorization: Bearer KEY" among `keys` (which
// it points into); UNAUTHORIZED as Authenticate when there is none.
Result<const ApiKey*> MatchingKey(const Request& request, const std::vector<ApiKey>& keys);

// ACCESS_DENIED when `role` may not use a route with `access`.
Status Authorize(Role role, unsigned access);

// Who an authenticated request comes from.
struct Caller {
  Role role = Role::kAdmin;
  // Who it is in the audit log: a stored key's name, a bootstrap key's
  // label (operator_identity.h), or "local" without keys.
  std::string actor = "local";
  // The key space of its Idempotency-Keys: "stored:ID", "key:HASH" or "local".
  std::string scope = "local";
  // The queues it may use (a stored worker key's scope); empty: every queue.
  std::vector<std::string> queues;
  // The key it presented or its token names: a stored key's id, or a
  // bootstrap key's id (token_auth.h: BootstrapKeyId) when it came with a
  // token; empty for a bootstrap key presented itself, and without keys.
  std::string key_id;
  // The bootstrap key it presented or its token names (points into
  // ApiOptions::keys); null for stored keys and without keys.
  const ApiKey* bootstrap_key = nullptr;
  // Set when it presented an access token rather than a key.
  std::optional<AccessClaims> token;
};

class TokenAuthority;  // token_auth.h

// The caller presenting "Authorization: Bearer KEY": a bootstrap key of
// `keys`, else a stored key of `stored` (by its secret's SHA-256), usable at
// `now` (its use is then noted). UNAUTHORIZED, saying why, when the header
// is missing or malformed, or names no key, a revoked key or an expired one.
// With `tokens`, an access token (access_token.h) is accepted too, checked
// as AuthenticateAccessToken (token_auth.h) does.
// REQUIRES: keys are required (bootstrap keys, or stored.any()).
Result<Caller> AuthenticateCaller(const Request& request, const std::vector<ApiKey>& keys,
                                  StoredKeys& stored, Instant now,
                                  const TokenAuthority* tokens = nullptr);
// The caller presenting API key `key` (not a token), as AuthenticateCaller.
Result<Caller> AuthenticateApiKey(std::string_view key, const std::vector<ApiKey>& keys,
                                  StoredKeys& stored, Instant now);

// The queues `caller` may use, for the engine's checks on the routes that
// name a job, not a queue (heartbeat, complete, fail, ack, snooze, claim's acks).
QueueScope CallerScope(const Caller& caller);
// ACCESS_DENIED, naming the allowed queues, when `caller` is limited to
// queues that do not include `queue`.
Status CheckQueueScope(const Caller& caller, std::string_view queue);

}  // namespace redrive::api
