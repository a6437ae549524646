#include "api/auth.h"

#include <algorithm>
#include <cctype>

#include "api/operator_identity.h"
#include "api/token_auth.h"
#include "crypto/secret_text.h"

namespace redrive::api {
namespace {

// Compares in time independent of where the strings differ, so response
// timing does not reveal how much of a guessed key was right.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  }
  return true;
}

Status Unauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}

}  // namespace

const char* RoleName(Role role) {
  switch (role) {
    case Role::kAdmin:
      return "admin";
    case Role::kWorker:
      return "worker";
    case Role::kViewer:
      return "viewer";
  }
  return "viewer";
}

Result<Role> Authenticate(const Request& request, const std::vector<ApiKey>& keys) {
  if (keys.empty()) return Role::kAdmin;
  REDRIVE_ASSIGN_OR_RETURN(const ApiKey* key, MatchingKey(request, keys));
  return key->role;
}

namespace {

// The token of "Authorization: Bearer TOKEN" (spaces around it dropped).
Result<std::string_view> BearerToken(const Request& request) {
  const std::string* header = request.header("authorization");
  constexpr std::string_view kScheme = "bearer ";
  if (header == nullptr || !StartsWithIgnoreCase(*header, kScheme)) {
    return Unauthorized("missing API key: send Authorization: Bearer <key>");
  }
  std::string_view token = std::string_view(*header).substr(kScheme.size());
  while (!token.empty() && token.front() == ' ') token.remove_prefix(1);
  while (!token.empty() && token.back() == ' ') token.remove_suffix(1);
  return token;
}

}  // namespace

Result<const ApiKey*> MatchingKey(const Request& request, const std::vector<ApiKey>& keys) {
  REDRIVE_ASSIGN_OR_RETURN(std::string_view token, BearerToken(request));
  for (const ApiKey& key : keys) {
    if (!token.empty() && ConstantTimeEquals(token, key.key)) return &key;
  }
  return Unauthorized("unknown API key");
}

Status Authorize(Role role, unsigned access) {
  if (role == Role::kAdmin || (access & kPublic)) return Status::Ok();
  if (role == Role::kWorker && (access & kWorkers)) return Status::Ok();
  if (role == Role::kViewer && (access & kViewers)) return Status::Ok();
  return Status(ErrorCode::kAccessDenied,
                std::string("the ") + RoleName(role) + " role may not use this route");
}

Result<Caller> AuthenticateApiKey(std::string_view token, const std::vector<ApiKey>& keys,
                                  StoredKeys& stored, Instant now) {
  if (token.empty()) return Unauthorized("unknown API key");
  for (const ApiKey& key : keys) {
    if (ConstantTimeEquals(token, key.key)) {
      Caller c;
      c.role = key.role;
      c.actor = KeyLabel(key);
      c.scope = KeyScope(key);
      c.bootstrap_key = &key;
      return c;
    }
  }
  // A stored key is found by its secret's hash (a map lookup: the hash, not
  // the secret, is compared, so timing tells nothing of the secret).
  std::optional<StoredKeys::Entry> entry = stored.Find(crypto::Sha256Hex(token));
  if (!entry) return Unauthorized("unknown API key");
  if (!entry->active) return Unauthorized("API key \"" + entry->name + "\" was revoked");
  if (entry->expires_at && now >= *entry->expires_at) {
    return Unauthorized("API key \"" + entry->name + "\" has expired");
  }
  stored.NoteUse(entry->id, now);
  Caller c;
  c.role = entry->role;
  c.actor = entry->name;
  c.scope = "stored:" + entry->id;
  c.queues = std::move(entry->queues);
  c.key_id = entry->id;
  return c;
}

Result<Caller> AuthenticateCaller(const Request& request, const std::vector<ApiKey>& keys,
                                  StoredKeys& stored, Instant now, const TokenAuthority* tokens) {
  REDRIVE_ASSIGN_OR_RETURN(std::string_view token, BearerToken(request));
  Result<Caller> by_key = AuthenticateApiKey(token, keys, stored, now);
  // A key is tried first: a bootstrap key may happen to have a token's shape.
  if (by_key.ok() || tokens == nullptr || !LooksLikeAccessToken(token)) return by_key;
  return AuthenticateAccessToken(token, keys, stored, *tokens, now);
}

QueueScope CallerScope(const Caller& caller) { return QueueScope{caller.queues}; }

Status CheckQueueScope(const Caller& caller, std::string_view queue) {
  return CallerScope(caller).Check(queue);
}

}  // namespace redrive::api
