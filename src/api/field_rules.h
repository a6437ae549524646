// The contract's limits on request fields ("Limits" in shared/spec/api.md),
// as reads over a FieldReader. Each failure is VALIDATION_ERROR naming the
// field, except an oversized payload or result: 413 PAYLOAD_TOO_LARGE (also
// naming the field).
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/job.h"
#include "core/limits.h"
#include "core/retry_budget.h"
#include "core/status.h"
#include "wire/field_reader.h"

namespace redrive::api {

Status CheckQueueName(const std::string& name, const std::string& path);
Result<std::string> RequiredQueueName(const wire::FieldReader& r);
Result<std::optional<std::string>> OptionalQueueName(const wire::FieldReader& r);

// A JSON value serialized for storage; PAYLOAD_TOO_LARGE beyond max_bytes.
Result<std::string> SerializeLimited(const boost::json::value& value, const std::string& path,
                                     size_t max_bytes);
Result<std::string> RequiredPayload(const wire::FieldReader& r, size_t max_bytes);
Result<std::optional<std::string>> OptionalResult(const wire::FieldReader& r, size_t max_bytes);

Result<std::optional<int>> Priority(const wire::FieldReader& r, std::string_view key);
Result<std::optional<int>> MaxRetries(const wire::FieldReader& r, std::string_view key);
Result<std::optional<int>> TimeoutSeconds(const wire::FieldReader& r, std::string_view key);
// crash_limit 0..100 (0: never quarantined), max_snoozes 0..1000.
Result<std::optional<int>> CrashLimit(const wire::FieldReader& r);
Result<std::optional<int>> MaxSnoozes(const wire::FieldReader& r);
// A redrive's `budget`: "reset" (when absent), "keep" or "extend:N" with N
// in 1..kMaxRetryExtend; anything else names `budget`.
Result<RetryBudget> Budget(const wire::FieldReader& r);
// "target_queue" of a redrive or release: a queue name, or unset.
Result<std::optional<std::string>> TargetQueue(const wire::FieldReader& r);
// An error class as GET /jobs/dlq/summary shows it (core/error_fingerprint.h):
// exactly 16 lowercase hex characters; anything else could never match, so
// it is refused (VALIDATION naming `fingerprint`). Check: a query's value;
// Decode: the body field "fingerprint".
Result<std::optional<std::string>> CheckFingerprint(std::optional<std::string> fingerprint);
Result<std::optional<std::string>> DecodeFingerprint(const wire::FieldReader& r);
// lease_duration_secs, 5..3600.
Result<std::optional<int>> LeaseSeconds(const wire::FieldReader& r);

// {base_ms?, max_ms?, jitter_ms?}: missing members take the default policy's
// values (1000, 60000, 500); max_ms must be >= base_ms.
Result<std::optional<BackoffPolicy>> Backoff(const wire::FieldReader& r);

// {"key": "value", ...}: values must be strings; keys non-empty and free of
// '=' (the tag filter's "key=value" syntax would be ambiguous); count, key
// and value length and serialized size within `limits` (the count and total
// name "tags", a key too long names "tags", a value too long "tags.KEY").
Result<Tags> TagsField(const wire::FieldReader& r, const ServerLimits& limits);

Result<std::optional<std::string>> IdempotencyKey(const wire::FieldReader& r);

// A failure's error message, required, of any length: longer than
// kMaxErrorLength bytes is not rejected; Apply stores it truncated (at a
// UTF-8 character boundary).
Result<std::string> ErrorMessage(const wire::FieldReader& r);

// retry_after_ms, 0..86,400,000.
Result<std::optional<std::chrono::milliseconds>> RetryAfter(const wire::FieldReader& r);

// A failure's `details` [ext] (POST /jobs/{id}/fail and a failure ack): an
// object of at most kMaxFailDetailsBytes serialized, kept in the failure's
// history entry; anything else is a 400 naming the field.
Result<std::optional<std::string>> FailDetails(const wire::FieldReader& r);

// VALIDATION_ERROR naming `key` when the body gives it (null counts as not
// given): a field Spooled defines that Redrive does not implement, refused
// rather than accepted and then ignored. The message is "<key> is not
// supported: <why>".
Status NotSupported(const wire::FieldReader& r, std::string_view key, std::string_view why);

// An object field (metadata) serialized; "{}" when not given.
Result<std::optional<std::string>> ObjectText(const wire::FieldReader& r, std::string_view key,
                                              size_t max_bytes);

}  // namespace redrive::api
