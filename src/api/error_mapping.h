// The one place a Status becomes an HTTP status and error body.
#pragma once

#include "api/http_types.h"
#include "core/status.h"

namespace redrive::api {

// The HTTP status of an error code: BAD_REQUEST/VALIDATION_ERROR 400,
// UNAUTHORIZED 401, ACCESS_DENIED 403, NOT_FOUND 404, METHOD_NOT_ALLOWED 405,
// CONFLICT/LEASE_EXPIRED 409, PAYLOAD_TOO_LARGE 413, UNSUPPORTED_MEDIA_TYPE
// 415, INTERNAL 500, UNAVAILABLE 503. (kOk maps to 200.)
int HttpStatusOf(ErrorCode code);

// REQUIRES: !status.ok(). The response {"code","message","details"?}.
Response ErrorResponse(const Status& status);

}  // namespace redrive::api
