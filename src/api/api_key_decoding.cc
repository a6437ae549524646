#include "api/api_key_decoding.h"

#include <algorithm>
#include <string>
#include <vector>

#include "api/field_rules.h"
#include "wire/field_reader.h"

namespace redrive::api {
namespace {

Status RefuseRateLimit(const wire::FieldReader& r) {
  if (r.Find("rate_limit") == nullptr) return Status::Ok();
  return Status::Validation("rate_limit",
                            "rate_limit is not supported: Redrive does not limit request rates "
                            "per key (leave it out)");
}

Result<std::optional<std::string>> RoleField(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(auto role, r.String("role", 1, 16));
  if (role && !IsApiKeyRole(*role)) {
    return Status::Validation("role", "role must be \"admin\", \"worker\" or \"viewer\"");
  }
  return role;
}

Result<std::optional<std::vector<std::string>>> QueuesField(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* array, r.Array("queues"));
  if (array == nullptr) return std::optional<std::vector<std::string>>();
  if (array->size() > kMaxApiKeyQueues) {
    return Status::Validation(
        "queues", "queues may name at most " + std::to_string(kMaxApiKeyQueues) + " queues");
  }
  std::vector<std::string> queues;
  for (size_t i = 0; i < array->size(); ++i) {
    const std::string path = "queues[" + std::to_string(i) + "]";
    if (!(*array)[i].is_string()) return Status::Validation(path, path + " must be a queue name");
    std::string name((*array)[i].get_string());
    REDRIVE_RETURN_IF_ERROR(CheckQueueName(name, path));
    if (std::find(queues.begin(), queues.end(), name) == queues.end()) queues.push_back(name);
  }
  return std::optional<std::vector<std::string>>(std::move(queues));
}

}  // namespace

Result<StoredApiKey> DecodeCreateApiKey(const boost::json::object& body) {
  wire::FieldReader r(body);
  REDRIVE_RETURN_IF_ERROR(RefuseRateLimit(r));
  StoredApiKey key;
  REDRIVE_ASSIGN_OR_RETURN(key.name, r.RequiredString("name", 1, kMaxApiKeyNameBytes));
  REDRIVE_ASSIGN_OR_RETURN(auto queues, QueuesField(r));
  if (queues) key.queues = std::move(*queues);
  REDRIVE_ASSIGN_OR_RETURN(auto role, RoleField(r));
  key.role = role ? *role : (key.queues.empty() ? "admin" : "worker");
  REDRIVE_RETURN_IF_ERROR(CheckApiKeyScope(key));
  REDRIVE_ASSIGN_OR_RETURN(key.expires_at, r.Time("expires_at"));
  return key;
}

Result<ApiKeyPatch> DecodeApiKeyPatch(const boost::json::object& body) {
  wire::FieldReader r(body);
  REDRIVE_RETURN_IF_ERROR(RefuseRateLimit(r));
  ApiKeyPatch patch;
  REDRIVE_ASSIGN_OR_RETURN(patch.name, r.String("name", 1, kMaxApiKeyNameBytes));
  REDRIVE_ASSIGN_OR_RETURN(patch.role, RoleField(r));
  REDRIVE_ASSIGN_OR_RETURN(patch.queues, QueuesField(r));
  REDRIVE_ASSIGN_OR_RETURN(patch.active, r.Bool("is_active"));
  if (r.Find("expires_at") != nullptr) {
    return Status::Validation("expires_at",
                              "expires_at is set when a key is created; create a new key instead");
  }
  return patch;
}

}  // namespace redrive::api
