// Token exchange: the shared token secret and the refresh tokens' lives
// (issue, reuse or single-use rotation, logout). The API makes every secret and hands
// the engine only hashes (api/token_authority.h).
#include <string>

#include "engine/engine.h"
#include "engine/engine_impl.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

namespace {

Status Unauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}

// Why `token` (as it was before this transaction) cannot be used at `now`.
Status Unusable(const std::optional<RefreshToken>& token, Instant now) {
  if (!token) return Unauthorized("unknown refresh token");
  if (token->ended_at) {
    if (token->end_reason == kRefreshEndRefreshed) {
      return Unauthorized(
          "refresh token was already used (each refresh token works once; use the one the last "
          "refresh answered, or log in again)");
    }
    if (token->end_reason == kRefreshEndKeyRevoked) {
      return Unauthorized("refresh token ended: its API key was revoked");
    }
    if (token->end_reason == kRefreshEndEvicted) {
      return Unauthorized("refresh token ended: its API key logged in too many times since");
    }
    return Unauthorized("refresh token was logged out");
  }
  if (now >= token->expires_at) return Unauthorized("refresh token has expired; log in again");
  return Status::Ok();
}

RefreshToken NewToken(std::string hash, std::string key_id, Instant now, std::chrono::seconds ttl) {
  RefreshToken t;
  t.token_hash = std::move(hash);
  t.key_id = std::move(key_id);
  t.created_at = now;
  t.expires_at = now + ttl;
  return t;
}

}  // namespace

void Engine::LoadTokenSecret(Callback<std::optional<std::string>> done) {
  impl_->Read<std::optional<std::string>>([](ReadTx& tx) { return tx.GetTokenSecret(); },
                                          std::move(done));
}

void Engine::EnsureTokenSecret(std::string candidate, Callback<std::string> done) {
  impl_->Write<std::string>(
      [candidate = std::move(candidate)](WriteTx& tx, TxContext&) {
        return tx.EnsureTokenSecret(candidate);
      },
      std::move(done));
}

void Engine::IssueRefreshToken(std::string token_hash, std::string key_id, std::chrono::seconds ttl,
                               Callback<RefreshToken> done) {
  impl_->Write<RefreshToken>(
      [token_hash = std::move(token_hash), key_id = std::move(key_id), ttl](
          WriteTx& tx, TxContext& ctx) -> Result<RefreshToken> {
        RefreshToken t = NewToken(token_hash, key_id, ctx.now, ttl);
        REDRIVE_RETURN_IF_ERROR(tx.InsertRefreshToken(t, kMaxLiveRefreshTokensPerKey).status());
        return t;
      },
      std::move(done));
}

void Engine::RotateRefreshToken(std::string old_hash, std::string new_hash,
                                std::chrono::seconds ttl,
                                std::function<Status(const RefreshToken&)> accept,
                                Callback<RefreshToken> done) {
  impl_->Write<RefreshToken>(
      [old_hash = std::move(old_hash), new_hash = std::move(new_hash), ttl,
       accept = std::move(accept)](WriteTx& tx, TxContext& ctx) -> Result<RefreshToken> {
        REDRIVE_ASSIGN_OR_RETURN(std::optional<RefreshToken> old,
                                 tx.EndRefreshToken(old_hash, ctx.now, kRefreshEndRefreshed));
        REDRIVE_RETURN_IF_ERROR(Unusable(old, ctx.now));
        // A refusal fails the write: the old token's end is rolled back too.
        REDRIVE_RETURN_IF_ERROR(accept(*old));
        RefreshToken next = NewToken(new_hash, old->key_id, ctx.now, ttl);
        REDRIVE_RETURN_IF_ERROR(tx.InsertRefreshToken(next, kMaxLiveRefreshTokensPerKey).status());
        return next;
      },
      std::move(done));
}

void Engine::UseRefreshToken(std::string token_hash,
                             std::function<Status(const RefreshToken&)> accept,
                             Callback<RefreshToken> done) {
  impl_->Read<RefreshToken>(
      [token_hash = std::move(token_hash), accept = std::move(accept),
       &clock = impl_->clock](ReadTx& tx) -> Result<RefreshToken> {
        REDRIVE_ASSIGN_OR_RETURN(std::optional<RefreshToken> token, tx.GetRefreshToken(token_hash));
        REDRIVE_RETURN_IF_ERROR(Unusable(token, clock.Now()));
        REDRIVE_RETURN_IF_ERROR(accept(*token));
        return std::move(*token);
      },
      std::move(done));
}

void Engine::EndRefreshToken(std::string token_hash, std::string key_id, Callback<bool> done) {
  impl_->Write<bool>(
      [token_hash = std::move(token_hash), key_id = std::move(key_id)](
          WriteTx& tx, TxContext& ctx) -> Result<bool> {
        REDRIVE_ASSIGN_OR_RETURN(std::optional<RefreshToken> was,
                                 tx.EndRefreshToken(token_hash, ctx.now, kRefreshEndLogout));
        if (!was) return false;
        // Another key's token is left as it was (the failure rolls back).
        if (was->key_id != key_id) {
          return Status(ErrorCode::kAccessDenied,
                        "refresh_token was issued to another API key: log out with its own");
        }
        return was && was->LiveAt(ctx.now);
      },
      std::move(done));
}

void Engine::EndRefreshTokensOfKey(std::string key_id, Callback<long long> done) {
  impl_->Write<long long>(
      [key_id = std::move(key_id)](WriteTx& tx, TxContext& ctx) {
        return tx.EndRefreshTokensOfKey(key_id, ctx.now, kRefreshEndLogout);
      },
      std::move(done));
}

}  // namespace redrive::engine
