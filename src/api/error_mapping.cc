#include "api/error_mapping.h"

#include <boost/json/serialize.hpp>

#include "wire/error_json.h"

namespace redrive::api {

int HttpStatusOf(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return 200;
    case ErrorCode::kBadRequest:
      return 400;
    case ErrorCode::kValidation:
      return 400;
    case ErrorCode::kUnauthorized:
      return 401;
    case ErrorCode::kAccessDenied:
      return 403;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kMethodNotAllowed:
      return 405;
    case ErrorCode::kConflict:
      return 409;
    case ErrorCode::kLeaseExpired:
      return 409;
    case ErrorCode::kPayloadTooLarge:
      return 413;
    case ErrorCode::kUnsupportedMediaType:
      return 415;
    case ErrorCode::kRateLimited:
      return 429;
    case ErrorCode::kInternal:
      return 500;
    case ErrorCode::kUnavailable:
    case ErrorCode::kAborted:
      return 503;
  }
  return 500;
}

Response ErrorResponse(const Status& status) {
  Response response;
  response.status = HttpStatusOf(status.code());
  response.body = boost::json::serialize(wire::ErrorToJson(status));
  return response;
}

}  // namespace redrive::api
