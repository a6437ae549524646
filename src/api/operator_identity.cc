#include "api/operator_identity.h"

#include <openssl/evp.h>

#include <stdexcept>

#include "api/auth.h"

namespace redrive::api {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("SHA-256 failed");  // OpenSSL out of memory: a bug or worse
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xF];
  }
  return out;
}

std::string KeyLabel(const ApiKey& key) {
  if (!key.name.empty()) return key.name;
  // 32 bits of the hash: enough to tell a handful of keys apart, too few to
  // help anyone guess a key.
  return std::string(RoleName(key.role)) + "#" + Sha256Hex(key.key).substr(0, 8);
}

std::string KeyScope(const ApiKey& key) { return "key:" + Sha256Hex(key.key).substr(0, 32); }

}  // namespace redrive::api
