#include "api/field_rules.h"

#include "core/error_fingerprint.h"
#include "core/limits.h"
#include "core/transition.h"
#include "wire/json_text.h"

namespace redrive::api {
namespace {

Result<std::optional<int>> IntField(const wire::FieldReader& r, std::string_view key, int64_t min,
                                    int64_t max) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> v, r.Int(key, min, max));
  if (!v) return std::optional<int>();
  return std::optional<int>(static_cast<int>(*v));
}

}  // namespace

Status CheckQueueName(const std::string& name, const std::string& path) {
  if (IsValidQueueName(name)) return Status::Ok();
  return Status::Validation(path, path +
                                      " must be 1-100 characters of [A-Za-z0-9._-], "
                                      "not starting with '.' or '-'");
}

Result<std::string> RequiredQueueName(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::string name, r.RequiredString("queue_name", 0, SIZE_MAX));
  REDRIVE_RETURN_IF_ERROR(CheckQueueName(name, r.Path("queue_name")));
  return name;
}

Result<std::optional<std::string>> OptionalQueueName(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> name, r.String("queue_name", 0, SIZE_MAX));
  if (name) REDRIVE_RETURN_IF_ERROR(CheckQueueName(*name, r.Path("queue_name")));
  return name;
}

Result<std::string> SerializeLimited(const boost::json::value& value, const std::string& path,
                                     size_t max_bytes) {
  std::string text = wire::SerializeJson(value);
  if (text.size() > max_bytes) {
    return Status(ErrorCode::kPayloadTooLarge,
                  path + " exceeds " + std::to_string(max_bytes) + " bytes serialized", path);
  }
  return text;
}

Result<std::string> RequiredPayload(const wire::FieldReader& r, size_t max_bytes) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::value* payload, r.RequiredValue("payload"));
  return SerializeLimited(*payload, r.Path("payload"), max_bytes);
}

Result<std::optional<std::string>> OptionalResult(const wire::FieldReader& r, size_t max_bytes) {
  const boost::json::value* result = r.Find("result");
  if (result == nullptr) return std::optional<std::string>();
  REDRIVE_ASSIGN_OR_RETURN(std::string text,
                           SerializeLimited(*result, r.Path("result"), max_bytes));
  return std::optional<std::string>(std::move(text));
}

Result<std::optional<int>> Priority(const wire::FieldReader& r, std::string_view key) {
  return IntField(r, key, kMinPriority, kMaxPriority);
}

Result<std::optional<int>> MaxRetries(const wire::FieldReader& r, std::string_view key) {
  return IntField(r, key, kMinMaxRetries, kMaxMaxRetries);
}

Result<std::optional<int>> CrashLimit(const wire::FieldReader& r) {
  return IntField(r, "crash_limit", kMinCrashLimit, kMaxCrashLimit);
}

Result<std::optional<int>> MaxSnoozes(const wire::FieldReader& r) {
  return IntField(r, "max_snoozes", kMinMaxSnoozes, kMaxMaxSnoozes);
}

Result<RetryBudget> Budget(const wire::FieldReader& r) {
  const std::string message = "budget must be \"reset\", \"keep\" or \"extend:N\" with N in 1.." +
                              std::to_string(kMaxRetryExtend);
  const boost::json::value* v = r.Find("budget");
  if (v == nullptr) return RetryBudget{};
  if (!v->is_string()) return Status::Validation(r.Path("budget"), message);
  std::optional<RetryBudget> budget = ParseRetryBudget(v->get_string());
  if (!budget) return Status::Validation(r.Path("budget"), message);
  return *budget;
}

Result<std::optional<std::string>> TargetQueue(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> name, r.String("target_queue", 0, SIZE_MAX));
  if (name) REDRIVE_RETURN_IF_ERROR(CheckQueueName(*name, r.Path("target_queue")));
  return name;
}

Result<std::optional<int>> TimeoutSeconds(const wire::FieldReader& r, std::string_view key) {
  return IntField(r, key, kMinTimeoutSeconds, kMaxTimeoutSeconds);
}

Result<std::optional<std::string>> CheckFingerprint(std::optional<std::string> fingerprint) {
  if (fingerprint && !IsErrorFingerprint(*fingerprint)) {
    return Status::Validation("fingerprint",
                              "fingerprint must be " + std::to_string(kFingerprintChars) +
                                  " lowercase hex characters (0-9, a-f), as the DLQ summary "
                                  "shows it");
  }
  return fingerprint;
}

Result<std::optional<std::string>> DecodeFingerprint(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> fingerprint, r.String("fingerprint", 1, 256));
  return CheckFingerprint(std::move(fingerprint));
}

Result<std::optional<int>> LeaseSeconds(const wire::FieldReader& r) {
  return IntField(r, "lease_duration_secs", kMinLeaseSeconds, kMaxLeaseSeconds);
}

Result<std::optional<BackoffPolicy>> Backoff(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* object, r.Object("backoff"));
  if (object == nullptr) return std::optional<BackoffPolicy>();
  wire::FieldReader b(*object, r.Path("backoff"));
  BackoffPolicy policy;
  REDRIVE_ASSIGN_OR_RETURN(auto base, b.Int("base_ms", 0, kMaxBackoffMs));
  REDRIVE_ASSIGN_OR_RETURN(auto max, b.Int("max_ms", 0, kMaxBackoffMs));
  REDRIVE_ASSIGN_OR_RETURN(auto jitter, b.Int("jitter_ms", 0, kMaxJitterMs));
  if (base) policy.base = std::chrono::milliseconds(*base);
  if (max) policy.max = std::chrono::milliseconds(*max);
  if (jitter) policy.jitter = std::chrono::milliseconds(*jitter);
  if (policy.max < policy.base) {
    return Status::Validation(b.Path("max_ms"), b.Path("max_ms") + " must be >= base_ms");
  }
  return std::optional<BackoffPolicy>(policy);
}

Result<Tags> TagsField(const wire::FieldReader& r, const ServerLimits& limits) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* object, r.Object("tags"));
  Tags tags;
  if (object == nullptr) return tags;
  const std::string field = r.Path("tags");
  if (object->size() > limits.max_tags) {
    return Status::Validation(field,
                              field + ": at most " + std::to_string(limits.max_tags) + " tags");
  }
  for (const auto& [key, value] : *object) {
    // A key too long is named by its object, not echoed: it may be huge.
    if (key.size() > limits.max_tag_key_bytes) {
      return Status::Validation(field, field + ": tag keys must be at most " +
                                           std::to_string(limits.max_tag_key_bytes) + " bytes");
    }
    std::string path = field + "." + std::string(key);
    if (key.empty() || key.find('=') != boost::json::string_view::npos) {
      return Status::Validation(path, "tag keys must be non-empty and must not contain '='");
    }
    if (!value.is_string()) return Status::Validation(path, path + " must be a string");
    if (value.get_string().size() > limits.max_tag_value_bytes) {
      return Status::Validation(
          path, path + " must be at most " + std::to_string(limits.max_tag_value_bytes) + " bytes");
    }
    tags.emplace(std::string(key), std::string(value.get_string()));
  }
  if (wire::SerializeJson(boost::json::value(*object)).size() > limits.max_tags_bytes) {
    return Status::Validation(field, field + " must serialize to at most " +
                                         std::to_string(limits.max_tags_bytes) + " bytes");
  }
  return tags;
}

Result<std::optional<std::string>> IdempotencyKey(const wire::FieldReader& r) {
  return r.String("idempotency_key", 1, kMaxIdempotencyKeyLength);
}

Result<std::string> ErrorMessage(const wire::FieldReader& r) {
  // Any length: Apply truncates the error it stores (core/transition.h).
  return r.RequiredString("error", 0, SIZE_MAX);
}

Result<std::optional<std::chrono::milliseconds>> RetryAfter(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> ms, r.Int("retry_after_ms", 0, kMaxBackoffMs));
  if (!ms) return std::optional<std::chrono::milliseconds>();
  return std::optional<std::chrono::milliseconds>(*ms);
}

Result<std::optional<std::string>> FailDetails(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* object, r.Object("details"));
  if (object == nullptr) return std::optional<std::string>();
  std::string text = wire::SerializeJson(boost::json::value(*object));
  if (text.size() > kMaxFailDetailsBytes) {
    return Status::Validation(
        r.Path("details"),
        "details exceeds " + std::to_string(kMaxFailDetailsBytes) + " bytes serialized");
  }
  return std::optional<std::string>(std::move(text));
}

Result<std::optional<std::string>> ObjectText(const wire::FieldReader& r, std::string_view key,
                                              size_t max_bytes) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* object, r.Object(key));
  if (object == nullptr) return std::optional<std::string>();
  REDRIVE_ASSIGN_OR_RETURN(std::string text,
                           SerializeLimited(boost::json::value(*object), r.Path(key), max_bytes));
  return std::optional<std::string>(std::move(text));
}

Status NotSupported(const wire::FieldReader& r, std::string_view key, std::string_view why) {
  if (r.Find(key) == nullptr) return Status::Ok();
  return Status::Validation(r.Path(key),
                            std::string(key) + " is not supported: " + std::string(why));
}

}  // namespace redrive::api
