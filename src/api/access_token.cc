#include "api/access_token.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <stdexcept>

namespace redrive::api {
namespace {

constexpr std::string_view kHeaderJson = R"({"alg":"HS256","typ":"JWT"})";
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

Status Unauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}

std::string Base64Url(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  unsigned bits = 0;
  int have = 0;
  for (unsigned char b : bytes) {
    bits = (bits << 8) | b;
    have += 8;
    while (have >= 6) {
      have -= 6;
      out += kAlphabet[(bits >> have) & 0x3F];
    }
  }
  if (have > 0) out += kAlphabet[(bits << (6 - have)) & 0x3F];
  return out;
}

int Sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// Unpadded base64url; unset on any other character or an impossible length.
std::optional<std::string> FromBase64Url(std::string_view text) {
  if (text.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  unsigned bits = 0;
  int have = 0;
  for (char c : text) {
    const int v = Sextet(c);
    if (v < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    have += 6;
    if (have >= 8) {
      have -= 8;
      out += static_cast<char>((bits >> have) & 0xFF);
    }
  }
  // Canonical only: the bits past the last byte must be zero, so no two
  // spellings of one signature exist.
  if ((bits & ((1u << have) - 1)) != 0) return std::nullopt;
  return out;
}

std::string HmacRaw(std::string_view key, std::string_view message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  static const unsigned char kEmpty = 0;
  const void* key_ptr = key.empty() ? &kEmpty : static_cast<const void*>(key.data());
  if (HMAC(EVP_sha256(), key_ptr, static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac,
           &mac_len) == nullptr) {
    throw std::runtime_error("HMAC-SHA256 failed");  // only if OpenSSL is broken
  }
  return std::string(reinterpret_cast<const char*>(mac), mac_len);
}

int64_t UnixSeconds(Instant t) { return ToMicros(t) / 1'000'000; }
Instant FromUnixSeconds(int64_t s) { return InstantFromMicros(s * 1'000'000); }

// The three parts of header.claims.signature; false unless exactly three.
bool Split(std::string_view token, std::string_view parts[3]) {
  const size_t a = token.find('.');
  if (a == std::string_view::npos) return false;
  const size_t b = token.find('.', a + 1);
  if (b == std::string_view::npos || token.find('.', b + 1) != std::string_view::npos) {
    return false;
  }
  parts[0] = token.substr(0, a);
  parts[1] = token.substr(a + 1, b - a - 1);
  parts[2] = token.substr(b + 1);
  return true;
}

const boost::json::value* Member(const boost::json::object& o, std::string_view key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->value();
}

Result<AccessClaims> ParseClaims(std::string_view json) {
  const Status malformed = Unauthorized("malformed access token: its claims are not Redrive's");
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(json, ec);
  if (ec || !v.is_object()) return malformed;
  const boost::json::object& o = v.as_object();
  const boost::json::value* type = Member(o, "token_type");
  if (type == nullptr || !type->is_string()) return malformed;
  if (type->get_string() != "access") {
    return Unauthorized("not an access token (token_type \"" +
                        std::string(type->get_string()).substr(0, 32) + "\")");
  }
  const boost::json::value* key = Member(o, "api_key_id");
  const boost::json::value* role = Member(o, "role");
  const boost::json::value* queues = Member(o, "queues");
  const boost::json::value* iat = Member(o, "iat");
  const boost::json::value* exp = Member(o, "exp");
  const boost::json::value* jti = Member(o, "jti");
  if (key == nullptr || !key->is_string() || role == nullptr || !role->is_string() ||
      queues == nullptr || !queues->is_array() || iat == nullptr || !iat->is_int64() ||
      exp == nullptr || !exp->is_int64() || jti == nullptr || !jti->is_string()) {
    return malformed;
  }
  AccessClaims c;
  c.api_key_id = std::string(key->get_string());
  c.role = std::string(role->get_string());
  for (const boost::json::value& q : queues->get_array()) {
    if (!q.is_string()) return malformed;
    c.queues.emplace_back(q.get_string());
  }
  // Bounded so the conversion to microseconds cannot overflow.
  constexpr int64_t kMaxSeconds = int64_t{1} << 40;
  if (iat->get_int64() < 0 || iat->get_int64() > kMaxSeconds || exp->get_int64() < 0 ||
      exp->get_int64() > kMaxSeconds) {
    return malformed;
  }
  c.issued_at = FromUnixSeconds(iat->get_int64());
  c.expires_at = FromUnixSeconds(exp->get_int64());
  c.jti = std::string(jti->get_string());
  return c;
}

}  // namespace

std::string HmacSha256Hex(std::string_view key, std::string_view message) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : HmacRaw(key, message)) {
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

bool LooksLikeAccessToken(std::string_view bearer) {
  std::string_view parts[3];
  if (!Split(bearer, parts)) return false;
  for (std::string_view p : parts) {
    if (p.empty()) return false;
    for (char c : p) {
      if (Sextet(c) < 0) return false;
    }
  }
  return true;
}

boost::json::object ClaimsJson(const AccessClaims& claims) {
  boost::json::array queues;
  for (const std::string& q : claims.queues) queues.emplace_back(q);
  return {{"sub", "default"},
          {"api_key_id", claims.api_key_id},
          {"org_id", "default"},
          {"role", claims.role},
          {"queues", std::move(queues)},
          {"iat", UnixSeconds(claims.issued_at)},
          {"nbf", UnixSeconds(claims.issued_at)},
          {"exp", UnixSeconds(claims.expires_at)},
          {"jti", claims.jti},
          {"token_type", "access"}};
}

std::string SignAccessToken(const AccessClaims& claims, std::string_view secret) {
  std::string signed_part = Base64Url(kHeaderJson);
  signed_part += '.';
  signed_part += Base64Url(boost::json::serialize(ClaimsJson(claims)));
  return signed_part + "." + Base64Url(HmacRaw(secret, signed_part));
}

Result<AccessClaims> VerifyAccessToken(std::string_view token, std::string_view secret,
                                       Instant now) {
  std::string_view parts[3];
  if (!Split(token, parts)) {
    return Unauthorized("malformed access token: expected header.claims.signature");
  }
  std::optional<std::string> header = FromBase64Url(parts[0]);
  std::optional<std::string> signature = FromBase64Url(parts[2]);
  if (!header || !signature || !FromBase64Url(parts[1])) {
    return Unauthorized("malformed access token: its parts are not base64url");
  }
  {
    boost::system::error_code ec;
    boost::json::value h = boost::json::parse(*header, ec);
    const boost::json::value* alg = (!ec && h.is_object()) ? Member(h.as_object(), "alg") : nullptr;
    if (alg == nullptr || !alg->is_string() || alg->get_string() != "HS256") {
      return Unauthorized("malformed access token: only HS256 tokens of this server are accepted");
    }
  }
  // The signature covers the parts as sent; compared in constant time.
  const std::string want = HmacRaw(secret, token.substr(0, parts[0].size() + 1 + parts[1].size()));
  if (signature->size() != want.size() ||
      CRYPTO_memcmp(signature->data(), want.data(), want.size()) != 0) {
    return Unauthorized(
        "access token signature does not verify: it was altered, or signed by another server");
  }
  REDRIVE_ASSIGN_OR_RETURN(AccessClaims claims, ParseClaims(*FromBase64Url(parts[1])));
  if (now >= claims.expires_at) {
    return Unauthorized("access token has expired; refresh it or log in again");
  }
  return claims;
}

}  // namespace redrive::api
