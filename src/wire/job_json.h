// Jobs on the wire, in the shapes of shared/spec/api.md: the full Job, the
// JobSummary of lists, the claimed job of POST /jobs/claim, the entries of
// GET /jobs/status and of a job's history.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "core/job.h"

namespace redrive::wire {

// Every job belongs to this organization: Redrive has one tenant, Spooled many.
inline constexpr const char* kOrganizationId = "default";

struct JobJsonOptions {
  // false for viewers: the "payload", "result" and "completion_webhook" keys
  // are left out entirely.
  bool include_payload = true;
};

// The contract's Job object; unset optionals are null.
boost::json::object JobToJson(const Job& job, JobJsonOptions options = {});

// The Job without payload, result and lease fields, plus "attempt":
// retry_count (the name Spooled's list endpoints use). last_error,
// dead_reason and deadlettered_at are included, so DLQ listings carry them.
boost::json::object JobSummaryToJson(const Job& job);

// An item of POST /jobs/claim's "jobs".
boost::json::object ClaimedJobToJson(const Job& job);

// An item of GET /jobs/status.
boost::json::object JobStatusEntryToJson(const Job& job);

// {"base_ms", "max_ms", "jitter_ms"}.
boost::json::object BackoffToJson(const BackoffPolicy& backoff);

// "max_retries_exceeded", ... or null for DeadReason::kNone.
boost::json::value DeadReasonToJson(DeadReason reason);

// An entry of GET /jobs/{id}/history; details embedded as a JSON object.
boost::json::object HistoryEntryToJson(const HistoryEntry& entry);

// An item of GET /jobs/dlq/summary: {"queue_name", "dead_reason", "error",
// "count", "oldest_deadlettered_at", "newest_deadlettered_at"}.
boost::json::object DeadLetterGroupToJson(const DeadLetterGroup& group);

}  // namespace redrive::wire
