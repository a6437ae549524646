// Bulk operations on the wire (POST/GET /api/v1/operations), both ways: the
// server encodes, the SDK decodes. `now` gives the ETA: "eta_seconds" and
// "estimated_finish_at" (core's EstimatedFinish), null when unknown.
#pragma once

#include <boost/json/object.hpp>

#include "core/operation.h"

namespace redrive::wire {

boost::json::object OperationToJson(const Operation& op, Instant now);
// Lenient (json_read.h): the selector object comes back as its JSON text.
Operation OperationFromJson(const boost::json::object& o);

}  // namespace redrive::wire
