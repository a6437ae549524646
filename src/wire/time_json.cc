#include "wire/time_json.h"

#include "core/time_format.h"

namespace redrive::wire {

boost::json::value TimeToJson(Instant t) { return boost::json::string(FormatTime(t)); }

boost::json::value TimeToJson(const std::optional<Instant>& t) {
  if (!t) return nullptr;
  return TimeToJson(*t);
}

}  // namespace redrive::wire
