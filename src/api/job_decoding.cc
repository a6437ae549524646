#include "api/job_decoding.h"

#include "api/field_rules.h"

namespace redrive::api {
namespace {

Status DecodeSettings(const wire::FieldReader& r, const JobDefaults& defaults,
                      engine::EnqueueParams& p) {
  REDRIVE_ASSIGN_OR_RETURN(p.priority, Priority(r, "priority"));
  REDRIVE_ASSIGN_OR_RETURN(p.max_retries, MaxRetries(r, "max_retries"));
  REDRIVE_ASSIGN_OR_RETURN(p.timeout_seconds, TimeoutSeconds(r, "timeout_seconds"));
  if (!p.priority) p.priority = defaults.priority;
  if (!p.max_retries) p.max_retries = defaults.max_retries;
  if (!p.timeout_seconds) p.timeout_seconds = defaults.timeout_seconds;
  REDRIVE_ASSIGN_OR_RETURN(p.backoff, Backoff(r));
  REDRIVE_ASSIGN_OR_RETURN(p.crash_limit, CrashLimit(r));
  REDRIVE_ASSIGN_OR_RETURN(p.max_snoozes, MaxSnoozes(r));
  return Status::Ok();
}

Result<engine::Ack> DecodeAck(const boost::json::value& item, const std::string& path,
                              const ServerLimits& limits) {
  if (!item.is_object()) return Status::Validation(path, path + " must be an object");
  wire::FieldReader r(item.get_object(), path);
  engine::Ack ack;
  REDRIVE_ASSIGN_OR_RETURN(ack.job_id, r.RequiredString("id", 1, 255));
  REDRIVE_ASSIGN_OR_RETURN(ack.lease_id, r.RequiredString("lease_id", 1, 255));
  if (r.Find("error") == nullptr) {
    if (r.Find("details") != nullptr) {
      return Status::Validation(r.Path("details"),
                                "details describe a failure: an ack with details needs error");
    }
    REDRIVE_ASSIGN_OR_RETURN(ack.result_json, OptionalResult(r, limits.max_payload_bytes));
    return ack;
  }
  if (r.Find("result") != nullptr) {
    return Status::Validation(r.Path("result"), "an ack carries either result or error");
  }
  REDRIVE_ASSIGN_OR_RETURN(ack.error, ErrorMessage(r));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<bool> no_retry, r.Bool("no_retry"));
  ack.no_retry = no_retry.value_or(false);
  REDRIVE_ASSIGN_OR_RETURN(ack.retry_after, RetryAfter(r));
  REDRIVE_ASSIGN_OR_RETURN(ack.details_json, FailDetails(r));
  return ack;
}

}  // namespace

Result<engine::EnqueueParams> DecodeJobFields(const wire::FieldReader& r,
                                              const ServerLimits& limits,
                                              const WebhookUrlRules& urls,
                                              const JobDefaults& defaults) {
  engine::EnqueueParams p;
  // parent_job_id is POST /jobs's alone (HandleEnqueue): its job waits for another.
  REDRIVE_ASSIGN_OR_RETURN(p.payload_json, RequiredPayload(r, limits.max_payload_bytes));
  REDRIVE_RETURN_IF_ERROR(DecodeSettings(r, defaults, p));
  REDRIVE_ASSIGN_OR_RETURN(p.scheduled_at, r.Time("scheduled_at"));
  REDRIVE_ASSIGN_OR_RETURN(p.expires_at, r.Time("expires_at"));
  REDRIVE_ASSIGN_OR_RETURN(p.tags, TagsField(r, limits));
  REDRIVE_ASSIGN_OR_RETURN(p.idempotency_key, IdempotencyKey(r));
  REDRIVE_ASSIGN_OR_RETURN(p.completion_webhook,
                           r.String("completion_webhook", 1, kMaxWebhookUrlBytes));
  if (p.completion_webhook) {
    REDRIVE_RETURN_IF_ERROR(
        CheckWebhookUrl(*p.completion_webhook, urls, r.Path("completion_webhook")));
  }
  return p;
}

Result<engine::EnqueueParams> DecodeEnqueue(const boost::json::object& body,
                                            const ServerLimits& limits,
                                            const WebhookUrlRules& urls) {
  wire::FieldReader r(body);
  // queue_name first: it is the field a client most often gets wrong.
  REDRIVE_ASSIGN_OR_RETURN(std::string queue_name, RequiredQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(engine::EnqueueParams p, DecodeJobFields(r, limits, urls));
  p.queue_name = std::move(queue_name);
  return p;
}

Result<std::vector<engine::Ack>> DecodeAcks(const wire::FieldReader& r,
                                            const ServerLimits& limits) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* items, r.Array("acks"));
  std::vector<engine::Ack> acks;
  if (items == nullptr) return acks;
  if (items->size() > kMaxAcks) {
    return Status::Validation(r.Path("acks"),
                              "at most " + std::to_string(kMaxAcks) + " acks per request");
  }
  for (size_t i = 0; i < items->size(); ++i) {
    std::string path = r.Path("acks") + "[" + std::to_string(i) + "]";
    REDRIVE_ASSIGN_OR_RETURN(engine::Ack ack, DecodeAck((*items)[i], path, limits));
    acks.push_back(std::move(ack));
  }
  return acks;
}

}  // namespace redrive::api
