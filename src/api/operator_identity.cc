#include "api/operator_identity.h"

#include <stdexcept>

#include "api/auth.h"
#include "crypto/secret_text.h"

namespace redrive::api {

std::string KeyLabel(const ApiKey& key) {
  if (!key.name.empty()) return key.name;
  // 32 bits of the hash: enough to tell a handful of keys apart, too few to
  // help anyone guess a key.
  return std::string(RoleName(key.role)) + "#" + crypto::Sha256Hex(key.key).substr(0, 8);
}

std::string KeyScope(const ApiKey& key) {
  return "key:" + crypto::Sha256Hex(key.key).substr(0, 32);
}

}  // namespace redrive::api
