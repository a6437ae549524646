// Decoding the parts of an HTTP request every route shares: the target (path
// segments and query, percent-decoded with Boost.URL), the JSON body, and
// typed query parameters.
//
// Body rules (POST and PUT):
//   - an empty body is {};
//   - a non-empty body must be declared "Content-Type: application/json"
//     (parameters such as charset allowed), else 415 UNSUPPORTED_MEDIA_TYPE;
//   - more than limits.max_body_bytes → 413 PAYLOAD_TOO_LARGE;
//   - unparsable JSON → 400 BAD_REQUEST; a JSON value that is not an object
//     → 400 BAD_REQUEST.
// Query rules: an empty value ("?queue_name=") is the same as an absent one;
// if a key repeats, the first value counts.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/call.h"
#include "api/http_types.h"
#include "core/job.h"
#include "core/limits.h"
#include "core/status.h"

namespace redrive::api {

struct Target {
  std::vector<std::string> segments;  // decoded; a trailing slash is ignored
  QueryParams query;
};

// BAD_REQUEST when `target` is not an origin-form request target.
Result<Target> ParseTarget(std::string_view target);

// True for "application/json" with any parameters, in any letter case.
bool IsJsonContentType(std::string_view content_type);

Result<boost::json::object> DecodeJsonBody(const Request& request, const ServerLimits& limits);

// Typed query parameters; nullopt when not given. Errors are VALIDATION_ERROR
// naming the parameter.
Result<std::optional<int64_t>> QueryInt(const QueryParams& query, std::string_view key, int64_t min,
                                        int64_t max);
// A list route's page size: an integer, clamped to 1..max (Spooled's rule: a
// client asking for 200 where the route allows 100 gets up to 100; 0 gets
// 1); `fallback` when not given. Negative or non-numeric: VALIDATION_ERROR
// naming `key`.
Result<int> QueryLimit(const QueryParams& query, std::string_view key, int max, int fallback);
// Spooled's order_by/order_dir on a list whose order is fixed (newest
// `column` first): accepted when they ask for that order, else
// VALIDATION_ERROR naming the parameter (never silently another order).
Status QueryFixedOrder(const QueryParams& query, std::string_view column);
std::optional<std::string> QueryString(const QueryParams& query, std::string_view key);
Result<std::optional<std::string>> QueryQueueName(const QueryParams& query);
Result<std::optional<JobStatus>> QueryStatus(const QueryParams& query);
Result<std::optional<DeadReason>> QueryDeadReason(const QueryParams& query);
// "true"/"1" or "false"/"0"; `fallback` when not given.
Result<bool> QueryBool(const QueryParams& query, std::string_view key, bool fallback);

}  // namespace redrive::api
