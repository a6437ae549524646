// Stored API keys: list, read, create, update (revoke is an update), and the
// two calls the API's per-node key cache makes: a versioned load and the
// batched last-used bookkeeping. The secret never reaches the engine: the
// API hashes it before the create.
#include "core/ids.h"
#include "engine/engine.h"
#include "engine/engine_impl.h"

namespace redrive::engine {

using store::ReadTx;
using store::WriteTx;

void Engine::ListApiKeys(Callback<std::vector<StoredApiKey>> done) {
  impl_->Read<std::vector<StoredApiKey>>([](ReadTx& tx) { return tx.ListApiKeys(); },
                                         std::move(done));
}

void Engine::GetApiKey(std::string id, Callback<StoredApiKey> done) {
  impl_->Read<StoredApiKey>([id = std::move(id)](ReadTx& tx) { return tx.GetApiKey(id); },
                            std::move(done));
}

void Engine::CreateApiKey(StoredApiKey key, Callback<StoredApiKey> done) {
  impl_->Write<StoredApiKey>(
      [key = std::move(key)](WriteTx& tx, TxContext& ctx) -> Result<StoredApiKey> {
        // The list is bounded by this very check, so reading it is cheap.
        REDRIVE_ASSIGN_OR_RETURN(std::vector<StoredApiKey> existing, tx.ListApiKeys());
        if (existing.size() >= kMaxStoredApiKeys) {
          return Status(ErrorCode::kConflict,
                        "the server already holds " + std::to_string(kMaxStoredApiKeys) +
                            " API keys (revoked ones count): no more can be created");
        }
        if (key.expires_at && *key.expires_at <= ctx.now) {
          return Status::Validation("expires_at", "expires_at must be in the future");
        }
        StoredApiKey k = key;
        k.id = NewUuidV7(ctx.now, ctx.random);
        k.active = true;
        k.created_at = k.updated_at = ctx.now;
        k.last_used_at.reset();
        REDRIVE_RETURN_IF_ERROR(CheckApiKeyScope(k));
        REDRIVE_RETURN_IF_ERROR(tx.InsertApiKey(k));
        return k;
      },
      std::move(done));
}

void Engine::UpdateApiKey(std::string id, ApiKeyPatch patch, Callback<StoredApiKey> done) {
  impl_->Write<StoredApiKey>(
      [id = std::move(id), patch = std::move(patch)](WriteTx& tx,
                                                     TxContext& ctx) -> Result<StoredApiKey> {
        REDRIVE_ASSIGN_OR_RETURN(StoredApiKey k, tx.GetApiKey(id));
        if (patch.name) k.name = *patch.name;
        if (patch.role) k.role = *patch.role;
        if (patch.queues) k.queues = *patch.queues;
        if (patch.active) k.active = *patch.active;
        REDRIVE_RETURN_IF_ERROR(CheckApiKeyScope(k));
        k.updated_at = ctx.now;
        REDRIVE_RETURN_IF_ERROR(tx.UpdateApiKey(k));
        // A revoked key's refresh tokens end with it (its access tokens are
        // refused by every node's key cache).
        if (!k.active) {
          REDRIVE_RETURN_IF_ERROR(
              tx.EndRefreshTokensOfKey(k.id, ctx.now, kRefreshEndKeyRevoked).status());
        }
        return k;
      },
      std::move(done));
}

void Engine::LoadApiKeys(std::optional<int64_t> known,
                         Callback<std::optional<ApiKeySnapshot>> done) {
  impl_->Read<std::optional<ApiKeySnapshot>>(
      [known](ReadTx& tx) -> Result<std::optional<ApiKeySnapshot>> {
        REDRIVE_ASSIGN_OR_RETURN(int64_t version, tx.ApiKeysVersion());
        if (known && *known == version) return std::optional<ApiKeySnapshot>();
        ApiKeySnapshot snapshot;
        snapshot.version = version;
        REDRIVE_ASSIGN_OR_RETURN(snapshot.keys, tx.ListApiKeys());
        return std::optional<ApiKeySnapshot>(std::move(snapshot));
      },
      std::move(done));
}

void Engine::RecordApiKeyUse(std::vector<ApiKeyUse> uses, StatusCallback done) {
  impl_->Write<bool>(
      [uses = std::move(uses)](WriteTx& tx, TxContext&) -> Result<bool> {
        REDRIVE_RETURN_IF_ERROR(tx.RecordApiKeyUse(uses));
        return true;
      },
      [done = std::move(done)](Result<bool> r) { done(r.status()); });
}

}  // namespace redrive::engine
