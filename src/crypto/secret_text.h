// The text forms of secrets and digests, written once for the whole server:
// unpadded base64url (RFC 4648 §5), random bytes from the OS (OpenSSL's
// RAND_bytes), SHA-256 and HMAC-SHA256. The API uses them for API keys,
// refresh tokens, access tokens, the token secret and Idempotency-Key
// fingerprints; the webhook sender signs deliveries with them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace redrive::crypto {

std::string Base64UrlEncode(std::string_view bytes);
// The bytes of unpadded base64url `text`; unset on any other character, an
// impossible length or a non-canonical spelling (set bits past the last
// byte), so no two spellings of one value exist.
std::optional<std::string> Base64UrlDecode(std::string_view text);
// True when every character of `text` is of base64url's alphabet.
bool IsBase64UrlText(std::string_view text);

// `bytes` (at most 64) random bytes from the OS, as base64url or as
// lower-case hex. Throws only if the OS has no randomness to give.
std::string RandomBase64Url(size_t bytes);
std::string RandomHex(size_t bytes);

// The lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);

// The 32 bytes of HMAC-SHA256 of `message` under `key`, raw or lower-case hex.
std::string HmacSha256(std::string_view key, std::string_view message);
std::string HmacSha256Hex(std::string_view key, std::string_view message);

}  // namespace redrive::crypto
