#include "api/auth_stored_keys.h"

namespace redrive::api {

std::optional<Role> ParseRole(std::string_view name) {
  if (name == "admin") return Role::kAdmin;
  if (name == "worker") return Role::kWorker;
  if (name == "viewer") return Role::kViewer;
  return std::nullopt;
}

StoredKeys::Entry StoredKeys::EntryOf(const StoredApiKey& key) {
  Entry e;
  e.id = key.id;
  e.name = key.name;
  // A role the store's CHECK admits but this binary does not know reads as
  // the least privileged.
  e.role = ParseRole(key.role).value_or(Role::kViewer);
  e.queues = key.queues;
  e.active = key.active;
  e.expires_at = key.expires_at;
  return e;
}

bool StoredKeys::any() const {
  std::shared_lock lock(mu_);
  return !loaded_ || any_;
}

std::optional<int64_t> StoredKeys::version() const {
  std::shared_lock lock(mu_);
  return version_;
}

std::optional<StoredKeys::Entry> StoredKeys::Find(std::string_view secret_hash) const {
  std::shared_lock lock(mu_);
  auto it = by_hash_.find(std::string(secret_hash));
  if (it == by_hash_.end()) return std::nullopt;
  return it->second;
}

std::optional<StoredKeys::Entry> StoredKeys::FindById(std::string_view id) const {
  std::shared_lock lock(mu_);
  auto it = hash_by_id_.find(std::string(id));
  if (it == hash_by_id_.end()) return std::nullopt;
  auto entry = by_hash_.find(it->second);
  if (entry == by_hash_.end()) return std::nullopt;
  return entry->second;
}

uint64_t StoredKeys::applied() const {
  std::shared_lock lock(mu_);
  return applied_;
}

void StoredKeys::Replace(const ApiKeySnapshot& snapshot, uint64_t applied_before) {
  std::unordered_map<std::string, Entry> fresh;
  std::unordered_map<std::string, std::string> fresh_ids;
  for (const StoredApiKey& key : snapshot.keys) {
    fresh.emplace(key.secret_hash, EntryOf(key));
    fresh_ids.emplace(key.id, key.secret_hash);
  }
  std::unique_lock lock(mu_);
  if (version_ && *version_ > snapshot.version) return;  // a slower, older read
  if (applied_ != applied_before) return;
  by_hash_ = std::move(fresh);
  hash_by_id_ = std::move(fresh_ids);
  version_ = snapshot.version;
  any_ = !snapshot.keys.empty();
  loaded_ = true;
}

void StoredKeys::Apply(const StoredApiKey& key) {
  std::unique_lock lock(mu_);
  by_hash_[key.secret_hash] = EntryOf(key);
  hash_by_id_[key.id] = key.secret_hash;
  any_ = true;
  ++applied_;
}

void StoredKeys::NoteUse(const std::string& id, Instant at) {
  std::lock_guard lock(uses_mu_);
  Instant& last = uses_[id];
  if (last < at) last = at;
}

std::vector<ApiKeyUse> StoredKeys::TakeUses() {
  std::unordered_map<std::string, Instant> taken;
  {
    std::lock_guard lock(uses_mu_);
    taken.swap(uses_);
  }
  std::vector<ApiKeyUse> out;
  out.reserve(taken.size());
  for (auto& [id, at] : taken) out.push_back({id, at});
  return out;
}

}  // namespace redrive::api
