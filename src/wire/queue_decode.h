// Queues, counts and workers from the wire (the SDK's direction): the inverse
// of queue_json.h and worker_json.h.
#pragma once

#include <boost/json/value.hpp>

#include "core/queue.h"
#include "core/status.h"

namespace redrive::wire {

// A QueueConfig (also the config part of a GET /queues item). Fails only when
// `v` is not an object with a "queue_name".
Result<QueueConfig> QueueConfigFromJson(const boost::json::value& v);

// {pending, scheduled, …}: absent counts are 0. Reads flat stats objects too.
StatusCounts StatusCountsFromJson(const boost::json::object& o);

// A worker object. Fails only when `v` is not an object with an "id".
Result<WorkerInfo> WorkerFromJson(const boost::json::value& v);

}  // namespace redrive::wire
