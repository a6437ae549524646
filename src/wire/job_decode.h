// Jobs from the wire (the SDK's direction): the inverse of job_json.h.
#pragma once

#include <boost/json/value.hpp>

#include "core/job.h"
#include "core/status.h"

namespace redrive::wire {

// A Job or a JobSummary (fields a summary lacks keep their defaults; its
// payload is "null"). payload and result become serialized JSON text.
// Fails only when `v` is not an object with an "id".
Result<Job> JobFromJson(const boost::json::value& v);

// {"base_ms", "max_ms", "jitter_ms"}; absent members take the defaults.
BackoffPolicy BackoffFromJson(const boost::json::object& o);

// An entry of GET /jobs/{id}/history.
Result<HistoryEntry> HistoryEntryFromJson(const boost::json::value& v);

// An item of GET /jobs/dlq/summary. Fails only when `v` is not an object
// with a "queue_name".
Result<DeadLetterGroup> DeadLetterGroupFromJson(const boost::json::value& v);

}  // namespace redrive::wire
