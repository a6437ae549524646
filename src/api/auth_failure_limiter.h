// Counts failed authentications per client address and, once an address has
// failed `max_failures` times within `window`, refuses its authenticated
// requests (429 RATE_LIMITED with Retry-After) until that window ends. This
// makes guessing keys slow whatever route is used (GET /api/v1/me included).
//
// The table is bounded: at most `max_clients` addresses, the least recently
// failing one evicted first, expired entries dropped when looked at. IPv6
// clients are counted per /64 (one subscriber's usual allocation), so an
// attacker cannot get a fresh budget per address. Time comes from a Clock.
//
// Thread-safety: every member function is safe from any thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/clock.h"

namespace redrive::api {

struct AuthFailureLimits {
  int max_failures = 10;  // per client within `window`; 0 turns the limit off
  std::chrono::seconds window{60};
  size_t max_clients = 10'000;  // addresses remembered at once
};

// The table's key for a client address: IPv4 (also v4-mapped IPv6) as is, other
// IPv6 addresses as their /64 prefix ("2001:db8:1:2::/64"), anything else as given.
std::string ClientKey(std::string_view address);

class AuthFailureLimiter {
 public:
  // `clock` must outlive the limiter.
  AuthFailureLimiter(const Clock& clock, AuthFailureLimits limits);

  // How long `address` must wait before authenticating again, rounded up to
  // whole seconds; nullopt when it may authenticate now.
  std::optional<std::chrono::seconds> RetryAfter(std::string_view address);

  // Counts one failed authentication by `address`.
  void RecordFailure(std::string_view address);

  size_t size() const;  // addresses remembered (for tests)

 private:
  struct Entry {
    Instant window_start;
    int failures = 0;
    std::list<std::string>::iterator recency;  // into recency_
  };

  bool Expired(const Entry& entry, Instant now) const {
    return now >= entry.window_start + limits_.window;
  }

  const Clock& clock_;
  const AuthFailureLimits limits_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, Entry> entries_;  // guarded by mu_
  std::list<std::string> recency_;                  // guarded by mu_; front: latest failure
};

}  // namespace redrive::api
