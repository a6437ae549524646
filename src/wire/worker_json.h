// Registered workers on the wire (GET /workers, GET /workers/{id}).
#pragma once

#include <boost/json/object.hpp>

#include "core/queue.h"

namespace redrive::wire {

// The worker as stored; "status" is WorkerInfo::status as given (the engine
// reports the effective status: offline after 3 silent heartbeat intervals).
// "last_heartbeat" and "current_jobs" are the names Spooled's clients read;
// "last_heartbeat_at" repeats it under Redrive's own naming.
boost::json::object WorkerToJson(const WorkerInfo& worker);

}  // namespace redrive::wire
