// The contract's error body: {"code", "message", "details"?}.
#pragma once

#include <boost/json/object.hpp>

#include "core/status.h"

namespace redrive::wire {

// REQUIRES: !status.ok(). "details" is present only when the status names a
// field: {"field": "jobs[3].payload"}.
boost::json::object ErrorToJson(const Status& status);

}  // namespace redrive::wire
