// Access tokens: what POST /api/v1/auth/login and /auth/refresh hand out and
// every route accepts as "Authorization: Bearer". A token is a JWT in
// Spooled's shape, signed with HMAC-SHA256 (HS256) under the server's token
// secret (one per store, shared by every node: token_authority.h), so any
// node checks it without a store read:
//   header  {"alg":"HS256","typ":"JWT"}
//   claims  sub and org_id ("default": Redrive serves one organization),
//           api_key_id, role [ext], queues (the key's scope; [] for every
//           queue), iat, nbf, exp (Unix seconds), jti, token_type "access"
// Pure functions: no clock, no store. The caller then checks the key the
// token names is still usable (token_auth.h).
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace redrive::api {

struct AccessClaims {
  std::string api_key_id;  // a stored key's id, or "bootstrap:" + digest
  std::string role;        // "admin", "worker", "viewer"
  std::vector<std::string> queues;
  Instant issued_at{};   // whole seconds
  Instant expires_at{};  // whole seconds
  std::string jti;       // unique per token
};

// Whether `bearer` has a JWT's shape (three base64url parts): tried as an
// access token rather than an API key.
bool LooksLikeAccessToken(std::string_view bearer);

// header.claims.signature, signed with `secret`.
std::string SignAccessToken(const AccessClaims& claims, std::string_view secret);

// The claims of a token signed with `secret` and unexpired at `now`.
// UNAUTHORIZED, saying which, when it is malformed, not HS256, signed with
// another secret or altered, not an access token, or expired.
Result<AccessClaims> VerifyAccessToken(std::string_view token, std::string_view secret,
                                       Instant now);

// The claims as JSON (Spooled's Claims, plus role), for /auth/validate.
boost::json::object ClaimsJson(const AccessClaims& claims);

}  // namespace redrive::api
