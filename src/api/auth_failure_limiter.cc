#include "api/auth_failure_limiter.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace redrive::api {

std::string ClientKey(std::string_view address) {
  std::string text(address);
  std::array<unsigned char, 16> bytes{};
  if (inet_pton(AF_INET6, text.c_str(), bytes.data()) != 1) return text;
  static constexpr std::array<unsigned char, 12> kV4Mapped = {0, 0, 0, 0, 0,    0,
                                                              0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(kV4Mapped.begin(), kV4Mapped.end(), bytes.begin())) {
    return std::to_string(bytes[12]) + "." + std::to_string(bytes[13]) + "." +
           std::to_string(bytes[14]) + "." + std::to_string(bytes[15]);
  }
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "%x:%x:%x:%x::/64", bytes[0] << 8 | bytes[1],
                bytes[2] << 8 | bytes[3], bytes[4] << 8 | bytes[5], bytes[6] << 8 | bytes[7]);
  return prefix;
}

AuthFailureLimiter::AuthFailureLimiter(const Clock& clock, AuthFailureLimits limits)
    : clock_(clock), limits_(limits) {}

std::optional<std::chrono::seconds> AuthFailureLimiter::RetryAfter(std::string_view address) {
  if (limits_.max_failures <= 0) return std::nullopt;
  const Instant now = clock_.Now();
  std::lock_guard lock(mu_);
  auto it = entries_.find(ClientKey(address));
  if (it == entries_.end()) return std::nullopt;
  if (Expired(it->second, now)) {
    recency_.erase(it->second.recency);
    entries_.erase(it);
    return std::nullopt;
  }
  if (it->second.failures < limits_.max_failures) return std::nullopt;
  const auto left = it->second.window_start + limits_.window - now;
  return std::chrono::ceil<std::chrono::seconds>(left);
}

void AuthFailureLimiter::RecordFailure(std::string_view address) {
  if (limits_.max_failures <= 0 || limits_.max_clients == 0) return;
  const Instant now = clock_.Now();
  std::string key = ClientKey(address);
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    // Full: forget the address whose last failure is oldest.
    if (entries_.size() >= limits_.max_clients) {
      entries_.erase(recency_.back());
      recency_.pop_back();
    }
    recency_.push_front(key);
    entries_.emplace(std::move(key), Entry{now, 1, recency_.begin()});
    return;
  }
  Entry& entry = it->second;
  if (Expired(entry, now)) {
    entry.window_start = now;
    entry.failures = 0;
  }
  ++entry.failures;
  recency_.splice(recency_.begin(), recency_, entry.recency);
}

size_t AuthFailureLimiter::size() const {
  std::lock_guard lock(mu_);
  return entries_.size();
}

}  // namespace redrive::api
