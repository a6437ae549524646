// Instants on the wire: RFC 3339 UTC strings with milliseconds, null when
// unset; average durations: whole milliseconds.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <optional>

#include "core/clock.h"

namespace redrive::wire {

boost::json::value TimeToJson(Instant t);
boost::json::value TimeToJson(const std::optional<Instant>& t);  // null when unset
// `total` over `count`, rounded to whole milliseconds (an integer, as the
// wire's other durations); null when count is 0.
boost::json::value AverageMillisToJson(std::chrono::microseconds total, long long count);

}  // namespace redrive::wire
