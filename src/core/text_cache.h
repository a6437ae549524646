// Texts built once per key and kept for the life of the process, such as a
// store's UPDATE statement for one set of changed columns (a handful of keys
// occur: one per kind of transition). The texts outlive static destruction:
// exit() destroys function-local statics while other threads (an engine's
// committer, a duty) may still be building statements, so a TextCache is made
// with `new` and never destroyed (found by fuzz_http_request, whose engine
// stops in an atexit handler that runs after such a map was destroyed).
//
//   static TextCache<uint64_t>& cache = TextCache<uint64_t>::Lasting();
//   std::string_view sql = cache.Get(key, [&] { return BuildSql(key); });
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace redrive {

template <typename Key>
class TextCache {
 public:
  // A cache that is never destroyed (see above).
  static TextCache& Lasting() { return *new TextCache(); }

  // The text for `key`, made by `build()` the first time. The view stays
  // valid for the life of the process. Thread-safe.
  template <typename Build>
  std::string_view Get(const Key& key, Build&& build) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = texts_.try_emplace(key);
    if (inserted) it->second = build();
    return it->second;
  }

 private:
  TextCache() = default;

  std::mutex mu_;
  std::unordered_map<Key, std::string> texts_;
};

}  // namespace redrive
