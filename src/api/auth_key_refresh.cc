#include "api/auth_key_refresh.h"

#include <spdlog/spdlog.h>

#include <future>
#include <memory>

#include "api/token_auth.h"
#include "engine/engine.h"

namespace redrive::api {
namespace {

// Engine calls answer within a store round trip; this bounds a wedged store.
constexpr std::chrono::seconds kMaxWait{30};

template <typename T, typename Start>
Result<T> Await(Start start) {
  auto promise = std::make_shared<std::promise<Result<T>>>();
  std::future<Result<T>> future = promise->get_future();
  start([promise](Result<T> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(kMaxWait) != std::future_status::ready) {
    return Status::Unavailable("the store did not answer within 30 s");
  }
  return future.get();
}

}  // namespace

Status LoadStoredKeys(engine::Engine& engine, StoredKeys& keys) {
  const uint64_t applied = keys.applied();
  const std::optional<int64_t> known = keys.version();
  Result<std::optional<ApiKeySnapshot>> loaded =
      Await<std::optional<ApiKeySnapshot>>([&](engine::Callback<std::optional<ApiKeySnapshot>> cb) {
        engine.LoadApiKeys(known, std::move(cb));
      });
  if (!loaded.ok()) return loaded.status();
  if (*loaded) keys.Replace(**loaded, applied);
  return Status::Ok();
}

Status FlushKeyUses(engine::Engine& engine, StoredKeys& keys) {
  std::vector<ApiKeyUse> uses = keys.TakeUses();
  if (uses.empty()) return Status::Ok();
  Result<bool> written = Await<bool>([&](engine::Callback<bool> cb) {
    engine.RecordApiKeyUse(std::move(uses), [cb](Status st) {
      if (!st.ok()) return cb(st);
      cb(true);
    });
  });
  return written.status();
}

KeyRefresher::KeyRefresher(engine::Engine& engine, StoredKeys& keys, TokenAuthority* tokens,
                           std::chrono::milliseconds refresh, std::chrono::milliseconds flush)
    : engine_(engine), keys_(keys), tokens_(tokens), refresh_(refresh), flush_(flush) {
  thread_ = std::thread([this] { Run(); });
}

KeyRefresher::~KeyRefresher() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
  (void)FlushKeyUses(engine_, keys_);  // fails quietly once the engine stopped
}

void KeyRefresher::Run() {
  auto last_flush = std::chrono::steady_clock::now();
  bool failing = false;
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, refresh_, [this] { return stopping_; })) {
    lock.unlock();
    Status st = LoadStoredKeys(engine_, keys_);
    if (st.ok() && tokens_ != nullptr) st = LoadTokenSecret(engine_, *tokens_);
    // Logged when it starts and stops failing, not once a second.
    if (!st.ok() && !failing)
      spdlog::warn("API keys: cannot reload from the store: {}", st.message());
    if (st.ok() && failing) spdlog::info("API keys: reloading from the store again");
    failing = !st.ok();
    if (std::chrono::steady_clock::now() - last_flush >= flush_) {
      last_flush = std::chrono::steady_clock::now();
      if (Status f = FlushKeyUses(engine_, keys_); !f.ok()) {
        spdlog::warn("API keys: cannot record last use: {}", f.message());
      }
    }
    lock.lock();
  }
}

}  // namespace redrive::api
