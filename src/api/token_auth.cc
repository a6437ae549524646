#include "api/token_auth.h"

#include <future>

#include "api/operator_identity.h"
#include "crypto/secret_text.h"
#include "engine/engine.h"

namespace redrive::api {
namespace {

constexpr std::string_view kBootstrapPrefix = "bootstrap:";

Status Unauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}

}  // namespace

std::shared_ptr<const std::string> TokenAuthority::secret() const {
  std::lock_guard lock(mu_);
  return secret_;
}

void TokenAuthority::SetSecret(std::string secret) {
  std::lock_guard lock(mu_);
  if (!secret_) secret_ = std::make_shared<const std::string>(std::move(secret));
}

Status LoadTokenSecret(engine::Engine& engine, TokenAuthority& tokens) {
  if (tokens.secret()) return Status::Ok();
  auto promise = std::make_shared<std::promise<Result<std::optional<std::string>>>>();
  auto future = promise->get_future();
  engine.LoadTokenSecret(
      [promise](Result<std::optional<std::string>> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    return Status::Unavailable("the store did not answer within 30 s");
  }
  Result<std::optional<std::string>> loaded = future.get();
  if (!loaded.ok()) return loaded.status();
  if (*loaded) tokens.SetSecret(std::move(**loaded));
  return Status::Ok();
}

std::string NewTokenSecret() { return crypto::RandomHex(32); }

std::string BootstrapKeyId(const ApiKey& key, std::string_view secret) {
  return std::string(kBootstrapPrefix) + crypto::HmacSha256Hex(secret, key.key).substr(0, 32);
}

bool IsBootstrapKeyId(std::string_view key_id) { return key_id.starts_with(kBootstrapPrefix); }

Result<Caller> CallerOfKeyId(std::string_view key_id, const std::vector<ApiKey>& keys,
                             const StoredKeys& stored, std::string_view secret, Instant now) {
  Caller c;
  c.key_id = std::string(key_id);
  if (IsBootstrapKeyId(key_id)) {
    for (const ApiKey& key : keys) {
      if (BootstrapKeyId(key, secret) != key_id) continue;
      c.role = key.role;
      c.actor = KeyLabel(key);
      c.scope = KeyScope(key);
      c.bootstrap_key = &key;
      return c;
    }
    return Unauthorized("the bootstrap key this token was issued to is no longer configured");
  }
  std::optional<StoredKeys::Entry> entry = stored.FindById(key_id);
  if (!entry) return Unauthorized("the API key this token was issued to is unknown");
  if (!entry->active) return Unauthorized("API key \"" + entry->name + "\" was revoked");
  if (entry->expires_at && now >= *entry->expires_at) {
    return Unauthorized("API key \"" + entry->name + "\" has expired");
  }
  c.role = entry->role;
  c.actor = entry->name;
  c.scope = "stored:" + entry->id;
  c.queues = std::move(entry->queues);
  return c;
}

Result<Caller> AuthenticateAccessToken(std::string_view token, const std::vector<ApiKey>& keys,
                                       StoredKeys& stored, const TokenAuthority& tokens,
                                       Instant now) {
  std::shared_ptr<const std::string> secret = tokens.secret();
  // No secret here yet: no node has logged in, or one just did and this
  // node reads the secret within a second (the key refresh).
  if (!secret) {
    return Unauthorized(
        "access token not accepted yet: no token was issued by this store's "
        "servers, or this node is still loading the token secret");
  }
  REDRIVE_ASSIGN_OR_RETURN(AccessClaims claims, VerifyAccessToken(token, *secret, now));
  REDRIVE_ASSIGN_OR_RETURN(Caller c, CallerOfKeyId(claims.api_key_id, keys, stored, *secret, now));
  if (!c.bootstrap_key) stored.NoteUse(c.key_id, now);
  c.token = std::move(claims);
  return c;
}

}  // namespace redrive::api
