#include "wire/time_json.h"

#include <cmath>

#include "core/time_format.h"

namespace redrive::wire {

boost::json::value TimeToJson(Instant t) { return boost::json::string(FormatTime(t)); }

boost::json::value TimeToJson(const std::optional<Instant>& t) {
  if (!t) return nullptr;
  return TimeToJson(*t);
}

boost::json::value AverageMillisToJson(std::chrono::microseconds total, long long count) {
  if (count <= 0) return nullptr;
  return std::llround(static_cast<double>(total.count()) / 1000.0 / static_cast<double>(count));
}

}  // namespace redrive::wire
