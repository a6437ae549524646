#include "core/duration.h"

#include <charconv>
#include <limits>

namespace redrive {
namespace {

std::optional<long long> UnitMillis(std::string_view unit) {
  if (unit.empty() || unit == "s") return 1000;
  if (unit == "ms") return 1;
  if (unit == "m") return 60'000;
  if (unit == "h") return 3'600'000;
  if (unit == "d") return 86'400'000;
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  long long count = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc() || end == text.data() || count < 0) return std::nullopt;
  auto unit = UnitMillis(text.substr(static_cast<size_t>(end - text.data())));
  if (!unit) return std::nullopt;
  if (count > std::numeric_limits<long long>::max() / *unit) return std::nullopt;
  return std::chrono::milliseconds(count * *unit);
}

}  // namespace redrive
