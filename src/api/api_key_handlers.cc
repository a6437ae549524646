// Stored API keys (Spooled's /api-keys, admin only): list, create, read,
// update, revoke. The secret is made here, from the operating system's
// randomness, shown once in the create answer and handed to the engine only
// as its SHA-256. Every change is applied to this node's key cache before
// it is answered, so it takes effect here at once (auth_stored_keys.h).

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/api_key_decoding.h"
#include "api/handlers.h"
#include "api/operator_identity.h"
#include "api/responses.h"
#include "core/time_format.h"
#include "crypto/secret_text.h"
#include "engine/engine.h"

namespace redrive::api {
namespace {

// Characters of the secret shown in lists (kApiKeySecretPrefix and 8 more).
constexpr size_t kShownPrefixChars = kApiKeySecretPrefix.size() + 8;

// "sk_rdk_" + 43 characters of base64url: 256 bits from the OS.
std::string NewSecret() { return std::string(kApiKeySecretPrefix) + crypto::RandomBase64Url(32); }

boost::json::value OptTime(const std::optional<Instant>& t) {
  return t ? boost::json::value(FormatTime(*t)) : boost::json::value(nullptr);
}

// Spooled's ApiKeySummary, plus role, key_prefix and updated_at [ext].
boost::json::object Summary(const StoredApiKey& k) {
  boost::json::array queues;
  for (const std::string& q : k.queues) queues.emplace_back(q);
  return {{"id", k.id},
          {"name", k.name},
          {"queues", std::move(queues)},
          {"rate_limit", nullptr},
          {"is_active", k.active},
          {"created_at", FormatTime(k.created_at)},
          {"last_used", OptTime(k.last_used_at)},
          {"expires_at", OptTime(k.expires_at)},
          {"role", k.role},
          {"key_prefix", k.prefix},
          {"updated_at", FormatTime(k.updated_at)}};
}

// Applies a written key to this node's cache, then answers with `encode`.
template <typename Encode>
engine::Callback<StoredApiKey> ApplyThenAnswer(const Call& call, Encode encode) {
  return Answer<StoredApiKey>(call.respond,
                              [keys = call.stored_keys, encode](StoredApiKey& k) -> Response {
                                if (keys != nullptr) keys->Apply(k);
                                return encode(k);
                              });
}

}  // namespace

void HandleListApiKeys(Call& call) {
  call.engine.ListApiKeys(
      Answer<std::vector<StoredApiKey>>(call.respond, [](std::vector<StoredApiKey>& keys) {
        boost::json::array out;
        // Newest first, as Spooled lists them.
        for (auto it = keys.rbegin(); it != keys.rend(); ++it) out.push_back(Summary(*it));
        return JsonResponse(200, out);
      }));
}

void HandleCreateApiKey(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<StoredApiKey> key = DecodeCreateApiKey(*body);
  if (!key.ok()) return call.Fail(key.status());
  std::string secret = NewSecret();
  key->secret_hash = crypto::Sha256Hex(secret);
  key->prefix = secret.substr(0, kShownPrefixChars);
  call.engine.CreateApiKey(std::move(*key),
                           ApplyThenAnswer(call, [secret = std::move(secret)](StoredApiKey& k) {
                             // Spooled's CreateApiKeyResponse; `key` is the only time the secret is
                             // shown.
                             boost::json::object out = Summary(k);
                             out["key"] = secret;
                             return JsonResponse(201, out);
                           }));
}

void HandleGetApiKey(Call& call) {
  call.engine.GetApiKey(call.Param("id"), Answer<StoredApiKey>(call.respond, [](StoredApiKey& k) {
                          return JsonResponse(200, Summary(k));
                        }));
}

void HandleUpdateApiKey(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<ApiKeyPatch> patch = DecodeApiKeyPatch(*body);
  if (!patch.ok()) return call.Fail(patch.status());
  call.engine.UpdateApiKey(
      call.Param("id"), std::move(*patch),
      ApplyThenAnswer(call, [](StoredApiKey& k) { return JsonResponse(200, Summary(k)); }));
}

void HandleRevokeApiKey(Call& call) {
  ApiKeyPatch patch;
  patch.active = false;
  call.engine.UpdateApiKey(
      call.Param("id"), std::move(patch),
      ApplyThenAnswer(call, [](StoredApiKey&) { return NoContentResponse(); }));
}

}  // namespace redrive::api
