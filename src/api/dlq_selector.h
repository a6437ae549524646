// The DLQ selector's body fields (job_ids, queue_name, dead_reason, tag,
// error_prefix), decoded once for every route that selects jobs with it:
// POST /jobs/dlq/retry, /jobs/dlq/purge (dlq_handlers.cc, which defines
// them) and POST /operations (operation_handlers.cc).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "engine/requests.h"
#include "wire/field_reader.h"

namespace redrive::api {

// "job_ids": at most 1000 strings; empty when absent.
Result<std::vector<std::string>> DecodeJobIds(const wire::FieldReader& r);
// queue_name, dead_reason, tag, error_prefix; unset fields do not filter.
Result<engine::DeadLetterFilter> DecodeBodyDeadLetterFilter(const wire::FieldReader& r);

}  // namespace redrive::api
