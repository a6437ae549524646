// The X-Redrive-Signature (and X-Spooled-Signature) value of a delivery.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace redrive::outbound_http {

// "sha256=" + hex HMAC-SHA256(secret, "<timestamp>.<body>"): what a receiver
// recomputes to check that a POST came from Redrive and was not altered or
// replayed with another timestamp.
std::string SignatureHeader(std::string_view secret, int64_t unix_seconds, std::string_view body);

}  // namespace redrive::outbound_http
