// Status and Result<T>: expected failures as values, with a closed set of codes
// that the HTTP layer maps to statuses in exactly one place (api/error_mapping).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace redrive {

// The contract's error codes (shared/spec api.md, "Errors"). kOk is success.
enum class ErrorCode {
  kOk,
  kBadRequest,            // 400: malformed JSON, missing confirm
  kValidation,            // 400: a field is wrong; Status::field() names it
  kUnauthorized,          // 401
  kAccessDenied,          // 403
  kNotFound,              // 404
  kMethodNotAllowed,      // 405
  kConflict,              // 409: wrong state
  kLeaseExpired,          // 409: the caller no longer holds the lease
  kPayloadTooLarge,       // 413
  kUnsupportedMediaType,  // 415
  kRateLimited,           // 429: too many failed authentications; see Retry-After
  kInternal,              // 500
  kUnavailable,           // 503
  // Not a wire code: a store transaction lost a race it may win when run
  // again (PostgreSQL serialization failure 40001, deadlock 40P01). The write
  // executor re-runs the request; one that escapes is sent as 503
  // SERVICE_UNAVAILABLE (ErrorCodeName gives that name).
  kAborted,
};

// The wire name of a code, e.g. "LEASE_EXPIRED".
const char* ErrorCodeName(ErrorCode code);
// The inverse of ErrorCodeName, for clients reading error bodies. Unknown
// names (a newer server) give kInternal; "OK" gives kOk.
ErrorCode ParseErrorCode(std::string_view name);

class Status {
 public:
  Status() = default;  // OK
  Status(ErrorCode code, std::string message, std::string field = {})
      : code_(code), message_(std::move(message)), field_(std::move(field)) {}

  static Status Ok() { return {}; }
  static Status BadRequest(std::string m) { return {ErrorCode::kBadRequest, std::move(m)}; }
  static Status Validation(std::string field, std::string m) {
    return {ErrorCode::kValidation, std::move(m), std::move(field)};
  }
  static Status NotFound(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
  static Status Conflict(std::string m) { return {ErrorCode::kConflict, std::move(m)}; }
  static Status LeaseExpired(std::string m) { return {ErrorCode::kLeaseExpired, std::move(m)}; }
  static Status Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }
  static Status Unavailable(std::string m) { return {ErrorCode::kUnavailable, std::move(m)}; }
  static Status Aborted(std::string m) { return {ErrorCode::kAborted, std::move(m)}; }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // For kValidation: the offending field's name (JSON path like "jobs[3].payload").
  const std::string& field() const { return field_; }
  std::string ToString() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
  std::string field_;
};

// Either a T or a non-OK Status.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok());
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

// Early-return helpers.
#define REDRIVE_RETURN_IF_ERROR(expr) \
  do {                                \
    ::redrive::Status _st = (expr);   \
    if (!_st.ok()) return _st;        \
  } while (0)

#define REDRIVE_CONCAT_INNER(a, b) a##b
#define REDRIVE_CONCAT(a, b) REDRIVE_CONCAT_INNER(a, b)
#define REDRIVE_ASSIGN_OR_RETURN(lhs, expr) \
  REDRIVE_ASSIGN_OR_RETURN_IMPL(REDRIVE_CONCAT(_res_, __LINE__), lhs, expr)
#define REDRIVE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

}  // namespace redrive
