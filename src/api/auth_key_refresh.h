// Keeping a node's StoredKeys (auth_stored_keys.h) in step with the store:
// LoadStoredKeys reloads the keys when the store's ApiKeysVersion moved,
// FlushKeyUses writes the noted last uses, and KeyRefresher does both on
// its own thread, now and then (and reads the token secret while this node
// has none: token_auth.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/auth_stored_keys.h"
#include "core/status.h"

namespace redrive::engine {
class Engine;
}

namespace redrive::api {

class TokenAuthority;  // token_auth.h

// Reads the keys if the store's version differs from the cache's (one read
// of the version otherwise) and replaces the cache's. Blocks the calling
// thread (never an I/O thread) until the engine answered.
Status LoadStoredKeys(engine::Engine& engine, StoredKeys& keys);
// Writes the uses noted since the last flush, if any, in one transaction.
// Blocks like LoadStoredKeys. Uses that fail to be written are dropped
// (last_used_at is informative; the next use notes it again).
Status FlushKeyUses(engine::Engine& engine, StoredKeys& keys);

// Calls LoadStoredKeys every `refresh` and FlushKeyUses every `flush` on its
// own thread, from construction to destruction (which flushes once more).
// `engine` and `keys` must outlive it.
class KeyRefresher {
 public:
  // `tokens` (may be null) must outlive it too.
  KeyRefresher(engine::Engine& engine, StoredKeys& keys, TokenAuthority* tokens,
               std::chrono::milliseconds refresh, std::chrono::milliseconds flush);
  ~KeyRefresher();
  KeyRefresher(const KeyRefresher&) = delete;
  KeyRefresher& operator=(const KeyRefresher&) = delete;

 private:
  void Run();

  engine::Engine& engine_;
  StoredKeys& keys_;
  TokenAuthority* tokens_;
  const std::chrono::milliseconds refresh_;
  const std::chrono::milliseconds flush_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace redrive::api
