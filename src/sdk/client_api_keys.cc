// Client: stored API keys (/api/v1/api-keys).
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "core/time_format.h"
#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "wire/json_read.h"

namespace redrive::sdk {
namespace {

Result<ApiKeyInfo> ApiKeyFromJson(const boost::json::value& v) {
  const boost::json::object* o = v.if_object();
  if (o == nullptr) return Status::Internal("malformed API key: not an object");
  ApiKeyInfo k;
  k.id = wire::ReadStringOr(*o, "id");
  k.name = wire::ReadStringOr(*o, "name");
  k.role = wire::ReadStringOr(*o, "role");
  k.key_prefix = wire::ReadStringOr(*o, "key_prefix");
  k.is_active = wire::ReadBoolOr(*o, "is_active", true);
  k.created_at = wire::ReadTime(*o, "created_at");
  k.last_used = wire::ReadTime(*o, "last_used");
  k.expires_at = wire::ReadTime(*o, "expires_at");
  k.secret = wire::ReadString(*o, "key");
  if (const boost::json::value* queues = o->if_contains("queues"); queues && queues->is_array()) {
    for (const boost::json::value& q : queues->get_array()) {
      if (q.is_string()) k.queues.emplace_back(q.get_string());
    }
  }
  return k;
}

}  // namespace

Result<std::vector<ApiKeyInfo>> Client::ListApiKeys() {
  return impl_->CallList<ApiKeyInfo>("/api-keys", ApiKeyFromJson);
}

Result<ApiKeyInfo> Client::CreateApiKey(const CreateApiKeyRequest& request) {
  boost::json::array queues;
  for (const std::string& q : request.queues) queues.emplace_back(q);
  boost::json::object body{{"name", request.name}, {"queues", std::move(queues)}};
  if (request.role) body["role"] = *request.role;
  if (request.expires_at) body["expires_at"] = FormatTime(*request.expires_at);
  return impl_->Call<ApiKeyInfo>("POST", "/api-keys", boost::json::value(std::move(body)),
                                 ApiKeyFromJson);
}

Status Client::RevokeApiKey(const std::string& id) {
  return impl_->Json("DELETE", PathWithId("/api-keys/", id)).status();
}

}  // namespace redrive::sdk
