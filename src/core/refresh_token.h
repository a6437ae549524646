// Token exchange (Spooled's /api/v1/auth/*): an API key is exchanged for a
// short-lived access token, signed by the server and checked without a store
// read (api/access_token.h), and a refresh token, kept in the store so that
// it can be used once, revoked and pruned. Plain data: the store keeps a
// refresh token only as the SHA-256 of its secret, so a copy of the database
// grants no refresh.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace redrive {

// The most live refresh tokens one key holds: a login beyond it ends the
// key's oldest live ones (reason kRefreshEndEvicted). A client holds one at
// a time (each refresh replaces it), so this is a bound on clients per key.
inline constexpr size_t kMaxLiveRefreshTokensPerKey = 100;

// How long a refresh token that ended or expired is kept before it is
// pruned (the audit-retention duty): meanwhile its reuse is refused naming
// why it ended, not as an unknown token.
inline constexpr std::chrono::hours kKeepEndedRefreshTokens{24};

// Why a refresh token ended (RefreshToken::end_reason).
inline constexpr std::string_view kRefreshEndRefreshed = "refreshed";     // used once
inline constexpr std::string_view kRefreshEndLogout = "logout";           // POST /auth/logout
inline constexpr std::string_view kRefreshEndKeyRevoked = "key_revoked";  // its key was revoked
inline constexpr std::string_view kRefreshEndEvicted = "evicted";         // over the per-key cap

struct RefreshToken {
  std::string token_hash;  // lower-case hex SHA-256 of the token; unique
  // The key it was issued to: a stored key's id, or "bootstrap:" and a
  // digest for a key of --api-key (api/token_authority.h).
  std::string key_id;
  Instant created_at{};
  Instant expires_at{};
  std::optional<Instant> ended_at;  // set once: used, logged out, revoked or evicted
  std::string end_reason;           // one of kRefreshEnd*; empty while not ended

  // Usable at `now`: not ended and not expired.
  bool LiveAt(Instant now) const { return !ended_at && now < expires_at; }
};

}  // namespace redrive
