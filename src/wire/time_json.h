// Instants on the wire: RFC 3339 UTC strings with milliseconds, null when unset.
#pragma once

#include <boost/json/value.hpp>
#include <optional>

#include "core/clock.h"

namespace redrive::wire {

boost::json::value TimeToJson(Instant t);
boost::json::value TimeToJson(const std::optional<Instant>& t);  // null when unset

}  // namespace redrive::wire
