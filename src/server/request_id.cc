#include "server/request_id.h"

#include <atomic>
#include <cstdint>
#include <random>
#include <utility>

namespace redrive::server {
namespace {

thread_local std::string current_request_id;

// A process-wide random start, then one step per id: ids are unique within
// a process and unlikely to repeat across restarts. They name requests in
// logs; they are no secret and grant nothing.
uint64_t NextIdNumber() {
  static std::atomic<uint64_t> next{std::random_device{}() * 0x9E3779B97F4A7C15ULL ^
                                    std::random_device{}()};
  // An odd multiplier is a bijection of uint64_t: consecutive counts give
  // unrelated-looking ids, and no two counts give the same one.
  return next.fetch_add(1, std::memory_order_relaxed) * 0xD1B54A32D192ED03ULL;
}

}  // namespace

bool IsAcceptableRequestId(std::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    if (c < 0x21 || c > 0x7E) return false;
  }
  return true;
}

std::string AcceptOrMakeRequestId(std::string_view client_id) {
  if (IsAcceptableRequestId(client_id)) return std::string(client_id);
  static constexpr char kHex[] = "0123456789abcdef";
  uint64_t n = NextIdNumber();
  std::string id(16, '0');
  for (int i = 15; i >= 0; --i, n >>= 4) id[static_cast<size_t>(i)] = kHex[n & 0xF];
  return id;
}

const std::string& CurrentRequestId() { return current_request_id; }

ScopedRequestId::ScopedRequestId(const std::string& id)
    : previous_(std::exchange(current_request_id, id)) {}

ScopedRequestId::~ScopedRequestId() { current_request_id = std::move(previous_); }

}  // namespace redrive::server
