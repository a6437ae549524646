#include "core/api_key.h"

namespace redrive {

bool IsApiKeyRole(std::string_view role) {
  return role == "admin" || role == "worker" || role == "viewer";
}

Status CheckApiKeyScope(const StoredApiKey& key) {
  if (key.queues.empty() || key.role == "worker") return Status::Ok();
  return Status::Validation(
      "queues", "only worker keys may be limited to queues (this key's role is " + key.role +
                    "); send \"queues\": [] or \"role\": \"worker\"");
}

}  // namespace redrive
