#include "core/status.h"

namespace redrive {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "OK";
    case ErrorCode::kBadRequest:
      return "BAD_REQUEST";
    case ErrorCode::kValidation:
      return "VALIDATION_ERROR";
    case ErrorCode::kUnauthorized:
      return "UNAUTHORIZED";
    case ErrorCode::kAccessDenied:
      return "ACCESS_DENIED";
    case ErrorCode::kNotFound:
      return "NOT_FOUND";
    case ErrorCode::kMethodNotAllowed:
      return "METHOD_NOT_ALLOWED";
    case ErrorCode::kConflict:
      return "CONFLICT";
    case ErrorCode::kLeaseExpired:
      return "LEASE_EXPIRED";
    case ErrorCode::kPayloadTooLarge:
      return "PAYLOAD_TOO_LARGE";
    case ErrorCode::kUnsupportedMediaType:
      return "UNSUPPORTED_MEDIA_TYPE";
    case ErrorCode::kRateLimited:
      return "RATE_LIMITED";
    case ErrorCode::kInternal:
      return "INTERNAL_ERROR";
    case ErrorCode::kUnavailable:
    case ErrorCode::kAborted:
      return "SERVICE_UNAVAILABLE";
  }
  return "INTERNAL_ERROR";
}

ErrorCode ParseErrorCode(std::string_view name) {
  for (ErrorCode c : {ErrorCode::kOk, ErrorCode::kBadRequest, ErrorCode::kValidation,
                      ErrorCode::kUnauthorized, ErrorCode::kAccessDenied, ErrorCode::kNotFound,
                      ErrorCode::kMethodNotAllowed, ErrorCode::kConflict, ErrorCode::kLeaseExpired,
                      ErrorCode::kPayloadTooLarge, ErrorCode::kUnsupportedMediaType,
                      ErrorCode::kRateLimited, ErrorCode::kInternal, ErrorCode::kUnavailable}) {
    if (name == ErrorCodeName(c)) return c;
  }
  return ErrorCode::kInternal;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s = ErrorCodeName(code_);
  s += ": ";
  s += message_;
  if (!field_.empty()) s += " (field " + field_ + ")";
  return s;
}

}  // namespace redrive
