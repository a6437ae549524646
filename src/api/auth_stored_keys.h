// StoredKeys: this node's cache of the API keys kept in the store
// (core/api_key.h), so that authenticating a request costs no store read:
// a map from a secret's SHA-256 to what the key may do.
//
// Freshness. A key created, changed or revoked through this node is applied
// here before its answer is sent (Apply): at once. Other nodes' changes
// arrive with Api's refresh (ApiOptions::key_refresh_interval), which reads
// the store's ApiKeysVersion and reloads every key only when it moved: a
// revoke made elsewhere takes effect here within one refresh interval (1 s
// by default in `redrive serve`), plus the time of one read.
//
// Until the first load succeeded the cache fails closed: it reports that
// keys are required (any() is true) while knowing none, so a node whose
// store cannot be read never falls back to the no-key mode.
//
// Last use. Each accepted request notes its key's use in memory (NoteUse);
// TakeUses hands the latest of each to the refresh, which writes them in one
// transaction now and then (not a write per request).
//
// Thread-safety: thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/api.h"
#include "core/api_key.h"
#include "core/clock.h"

namespace redrive::api {

class StoredKeys {
 public:
  // What a request presenting the key may do.
  struct Entry {
    std::string id;
    std::string name;
    Role role = Role::kViewer;
    std::vector<std::string> queues;  // empty: every queue
    bool active = true;
    std::optional<Instant> expires_at;
  };

  // True once the store has held any key (revoked ones count), or while
  // nothing was loaded yet: requests must then present a key.
  bool any() const;
  // The version of the last load; unset before the first.
  std::optional<int64_t> version() const;
  // The key whose secret hashes to `secret_hash`, if any.
  std::optional<Entry> Find(std::string_view secret_hash) const;
  // The key whose id is `id`, if any (an access token names its key so).
  std::optional<Entry> FindById(std::string_view id) const;

  // How many Applys this cache has seen; a load takes it before it reads.
  uint64_t applied() const;
  // Replaces every entry by `snapshot`'s, read by a load that began when
  // applied() was `applied_before`; unless a newer version is held, or a
  // write of this node was applied since (the read may predate it: the
  // next refresh, seeing the version moved, loads again).
  void Replace(const ApiKeySnapshot& snapshot, uint64_t applied_before);
  // One key as this node just wrote it (created, updated, revoked).
  void Apply(const StoredApiKey& key);

  void NoteUse(const std::string& id, Instant at);
  // The uses noted since the last call, the latest per key.
  std::vector<ApiKeyUse> TakeUses();

 private:
  static Entry EntryOf(const StoredApiKey& key);

  mutable std::shared_mutex mu_;
  bool loaded_ = false;
  bool any_ = false;
  std::optional<int64_t> version_;
  uint64_t applied_ = 0;
  std::unordered_map<std::string, Entry> by_hash_;
  std::unordered_map<std::string, std::string> hash_by_id_;

  std::mutex uses_mu_;
  std::unordered_map<std::string, Instant> uses_;
};

// "admin", "worker", "viewer" to a Role; unset for anything else.
std::optional<Role> ParseRole(std::string_view name);

}  // namespace redrive::api
