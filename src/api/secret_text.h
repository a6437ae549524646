// The text forms of secrets, written once for API keys, refresh tokens,
// access tokens and the token secret: unpadded base64url (RFC 4648 §5),
// random bytes from the OS (OpenSSL's RAND_bytes), HMAC-SHA256.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace redrive::api {

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

// The 32 bytes of HMAC-SHA256 of `message` under `key`, raw or lower-case hex.
std::string HmacSha256(std::string_view key, std::string_view message);
std::string HmacSha256Hex(std::string_view key, std::string_view message);

}  // namespace redrive::api
