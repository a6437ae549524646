#include "api/access_token.h"

#include <openssl/crypto.h>

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "crypto/secret_text.h"

namespace redrive::api {
namespace {

constexpr std::string_view kHeaderJson = R"({"alg":"HS256","typ":"JWT"})";

Status Unauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
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

bool LooksLikeAccessToken(std::string_view bearer) {
  std::string_view parts[3];
  if (!Split(bearer, parts)) return false;
  for (std::string_view p : parts) {
    if (p.empty() || !crypto::IsBase64UrlText(p)) return false;
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
  std::string signed_part = crypto::Base64UrlEncode(kHeaderJson);
  signed_part += '.';
  signed_part += crypto::Base64UrlEncode(boost::json::serialize(ClaimsJson(claims)));
  return signed_part + "." + crypto::Base64UrlEncode(crypto::HmacSha256(secret, signed_part));
}

Result<AccessClaims> VerifyAccessToken(std::string_view token, std::string_view secret,
                                       Instant now) {
  std::string_view parts[3];
  if (!Split(token, parts)) {
    return Unauthorized("malformed access token: expected header.claims.signature");
  }
  std::optional<std::string> header = crypto::Base64UrlDecode(parts[0]);
  std::optional<std::string> signature = crypto::Base64UrlDecode(parts[2]);
  if (!header || !signature || !crypto::Base64UrlDecode(parts[1])) {
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
  const std::string want =
      crypto::HmacSha256(secret, token.substr(0, parts[0].size() + 1 + parts[1].size()));
  if (signature->size() != want.size() ||
      CRYPTO_memcmp(signature->data(), want.data(), want.size()) != 0) {
    return Unauthorized(
        "access token signature does not verify: it was altered, or signed by another server");
  }
  REDRIVE_ASSIGN_OR_RETURN(AccessClaims claims, ParseClaims(*crypto::Base64UrlDecode(parts[1])));
  if (now >= claims.expires_at) {
    return Unauthorized("access token has expired; refresh it or log in again");
  }
  return claims;
}

}  // namespace redrive::api
