// Decoding of the job-carrying request bodies: POST /jobs, the items of
// POST /jobs/bulk, and the acks of POST /jobs/ack and POST /jobs/claim.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/webhook_decoding.h"
#include "core/limits.h"
#include "core/status.h"
#include "engine/requests.h"
#include "wire/field_reader.h"

namespace redrive::api {

// Job settings that apply when a job does not give its own (bulk defaults).
struct JobDefaults {
  std::optional<int> priority, max_retries, timeout_seconds;
};

// The fields of one job except queue_name: payload*, priority, max_retries,
// timeout_seconds, scheduled_at, expires_at, tags, idempotency_key, backoff,
// completion_webhook (a URL `urls` allow, as an outgoing webhook's).
// parent_job_id is not among them (POST /jobs reads it: DecodeParentJobId).
Result<engine::EnqueueParams> DecodeJobFields(const wire::FieldReader& r,
                                              const ServerLimits& limits,
                                              const WebhookUrlRules& urls,
                                              const JobDefaults& defaults = {});

// POST /jobs.
Result<engine::EnqueueParams> DecodeEnqueue(const boost::json::object& body,
                                            const ServerLimits& limits,
                                            const WebhookUrlRules& urls);

// The "acks" array (at most kMaxAcks): each {id*, lease_id*, result?} (a
// completion) or {id*, lease_id*, error*, no_retry?, retry_after_ms?,
// details?} (a failure, its fields checked as POST /jobs/{id}/fail's). A malformed item fails the
// whole request: it is a client bug, unlike a stale lease, which is reported per item. Absent →
// empty.
Result<std::vector<engine::Ack>> DecodeAcks(const wire::FieldReader& r, const ServerLimits& limits);

}  // namespace redrive::api
