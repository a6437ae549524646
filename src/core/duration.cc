#include "core/duration.h"

#include <charconv>
#include <iterator>
#include <limits>

namespace redrive {
namespace {

struct Unit {
  std::string_view name;
  long long millis;
};
// Largest first: a compound duration names its units in this order.
constexpr Unit kUnits[] = {
    {"d", 86'400'000}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1000}, {"ms", 1}};

// The unit `text` starts with ("ms" before "m"); its index in kUnits, or -1.
int UnitAt(std::string_view text, size_t& length) {
  for (int i = 0; i < static_cast<int>(std::size(kUnits)); ++i) {
    std::string_view name = kUnits[i].name;
    bool longer_match = name == "m" && text.starts_with("ms");
    if (text.starts_with(name) && !longer_match) {
      length = name.size();
      return i;
    }
  }
  return -1;
}

}  // namespace

std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  constexpr long long kMax = std::numeric_limits<long long>::max();
  long long total = 0;
  int last_unit = -1;  // units must strictly shrink: "1h30m", not "30m1h" or "1m1m"
  const char* p = text.data();
  const char* end = text.data() + text.size();
  if (p == end) return std::nullopt;
  while (p < end) {
    long long count = 0;
    auto [after, ec] = std::from_chars(p, end, count);
    if (ec != std::errc() || after == p || count < 0 || *p == '-' || *p == '+') {
      return std::nullopt;
    }
    if (after == end && p == text.data()) {  // a bare number: seconds
      if (count > kMax / 1000) return std::nullopt;
      return std::chrono::milliseconds(count * 1000);
    }
    size_t length = 0;
    int unit = UnitAt(std::string_view(after, static_cast<size_t>(end - after)), length);
    if (unit <= last_unit) return std::nullopt;  // none (-1), repeated or out of order
    const long long millis = kUnits[unit].millis;
    if (count > kMax / millis || total > kMax - count * millis) return std::nullopt;
    total += count * millis;
    last_unit = unit;
    p = after + length;
  }
  return std::chrono::milliseconds(total);
}

}  // namespace redrive
