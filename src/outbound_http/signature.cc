#include "outbound_http/signature.h"

#include "crypto/secret_text.h"

namespace redrive::outbound_http {

std::string SignatureHeader(std::string_view secret, int64_t unix_seconds, std::string_view body) {
  std::string message = std::to_string(unix_seconds);
  message.push_back('.');
  message.append(body);
  return "sha256=" + crypto::HmacSha256Hex(secret, message);
}

}  // namespace redrive::outbound_http
