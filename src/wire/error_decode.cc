#include "wire/error_decode.h"

#include <string>

#include "wire/json_read.h"

namespace redrive::wire {

ErrorCode ErrorCodeForHttpStatus(int http_status) {
  switch (http_status) {
    case 400:
      return ErrorCode::kBadRequest;
    case 401:
      return ErrorCode::kUnauthorized;
    case 403:
      return ErrorCode::kAccessDenied;
    case 404:
      return ErrorCode::kNotFound;
    case 405:
      return ErrorCode::kMethodNotAllowed;
    case 409:
      return ErrorCode::kConflict;
    case 413:
      return ErrorCode::kPayloadTooLarge;
    case 415:
      return ErrorCode::kUnsupportedMediaType;
    case 429:
      return ErrorCode::kRateLimited;
    case 502:
    case 503:
    case 504:
      return ErrorCode::kUnavailable;
    default:
      return ErrorCode::kInternal;
  }
}

Status ErrorFromJson(const boost::json::value& body, int http_status) {
  ErrorCode code = ErrorCodeForHttpStatus(http_status);
  std::string message = "HTTP " + std::to_string(http_status);
  std::string field;
  if (const auto* o = body.if_object()) {
    if (auto c = ReadString(*o, "code")) {
      ErrorCode parsed = ParseErrorCode(*c);
      if (parsed != ErrorCode::kOk) code = parsed;
    }
    if (auto m = ReadString(*o, "message")) message = *m;
    if (const auto* d = ReadObject(*o, "details")) field = ReadStringOr(*d, "field");
  }
  if (code == ErrorCode::kOk) code = ErrorCode::kInternal;
  return Status(code, std::move(message), std::move(field));
}

}  // namespace redrive::wire
