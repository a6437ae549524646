#include "outbound_http/hmac.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace redrive::outbound_http {

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  // An empty key is legal HMAC; OpenSSL wants a non-null pointer for it.
  static const unsigned char kEmpty = 0;
  const void* key_ptr = key.empty() ? &kEmpty : static_cast<const void*>(key.data());
  if (HMAC(EVP_sha256(), key_ptr, static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac,
           &mac_len) == nullptr) {
    throw std::runtime_error("HMAC-SHA256 failed");  // only if OpenSSL is broken
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(mac_len * 2);
  for (unsigned int i = 0; i < mac_len; ++i) {
    hex.push_back(kHex[mac[i] >> 4]);
    hex.push_back(kHex[mac[i] & 15]);
  }
  return hex;
}

std::string SignatureHeader(std::string_view secret, int64_t unix_seconds, std::string_view body) {
  std::string message = std::to_string(unix_seconds);
  message.push_back('.');
  message.append(body);
  return "sha256=" + HmacSha256Hex(secret, message);
}

}  // namespace redrive::outbound_http
