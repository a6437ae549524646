// Auto-redrive policies (core/autoredrive.h): GET /autoredrive, and GET, PUT
// (create or replace) and DELETE /queues/{name}/autoredrive.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <set>

#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "core/error_fingerprint.h"
#include "wire/autoredrive_json.h"
#include "wire/field_reader.h"

namespace redrive::api {
namespace {

// PUT's fields. Any other member is refused: a misspelt bound must never
// fall back silently to its default.
const std::set<std::string, std::less<>> kPolicyFields = {
    "enabled",     "fingerprint",     "dead_reason",          "cooldown_seconds",
    "canary_size", "rate_per_second", "max_revivals_per_job", "max_cooldown_seconds"};

Result<std::string> QueueName(const Call& call) {
  const std::string& name = call.Param("name");
  REDRIVE_RETURN_IF_ERROR(CheckQueueName(name, "queue_name"));
  return name;
}

// The body of PUT: the whole policy (an omitted field takes its default;
// enabled defaults to false, so a policy is off until switched on).
Result<AutoredrivePolicy> DecodePolicy(const boost::json::object& body, std::string queue_name) {
  for (const auto& member : body) {
    if (!kPolicyFields.contains(member.key())) {
      const std::string field(member.key());
      return Status::Validation(field, field +
                                           " is not an auto-redrive field (fields: enabled, "
                                           "fingerprint, dead_reason, cooldown_seconds, "
                                           "max_cooldown_seconds, canary_size, rate_per_second, "
                                           "max_revivals_per_job)");
    }
  }
  wire::FieldReader r(body);
  AutoredrivePolicy p;
  p.queue_name = std::move(queue_name);
  REDRIVE_ASSIGN_OR_RETURN(std::optional<bool> enabled, r.Bool("enabled"));
  p.enabled = enabled.value_or(false);
  REDRIVE_ASSIGN_OR_RETURN(p.fingerprint,
                           r.RequiredString("fingerprint", kFingerprintChars, kFingerprintChars));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> reason, r.String("dead_reason", 1, 64));
  if (reason) {
    p.reason = ParseDeadReason(*reason);
    if (!p.reason) {
      return Status::Validation("dead_reason", "dead_reason must be one of " + DeadReasonNames());
    }
  }
  const int64_t max_s = kMaxAutoredriveMaxCooldown.count();
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> cooldown, r.Int("cooldown_seconds", 1, max_s));
  if (cooldown) p.cooldown = std::chrono::seconds(*cooldown);
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> max_cooldown,
                           r.Int("max_cooldown_seconds", 1, max_s));
  if (max_cooldown) p.max_cooldown = std::chrono::seconds(*max_cooldown);
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> canary, r.Int("canary_size", 1, kMaxCanarySize));
  if (canary) p.canary_size = static_cast<int>(*canary);
  REDRIVE_ASSIGN_OR_RETURN(std::optional<double> rate,
                           r.Number("rate_per_second", 0.01, kMaxAutoredriveRate));
  if (rate) p.rate_per_second = *rate;
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> revivals,
                           r.Int("max_revivals_per_job", 1, kMaxMaxRevivalsPerJob));
  if (revivals) p.max_revivals_per_job = static_cast<int>(*revivals);
  // A max_cooldown left out grows to a longer cooldown rather than refusing it.
  if (!max_cooldown && p.max_cooldown < p.cooldown) p.max_cooldown = p.cooldown;
  Status valid = ValidateAutoredrivePolicy(p);
  if (!valid.ok()) {
    // Core names durations; on the wire they are whole seconds.
    const std::string& f = valid.field();
    const std::string field = f == "cooldown" || f == "max_cooldown" ? f + "_seconds" : f;
    return Status::Validation(field, valid.message());
  }
  return p;
}

Response ViewResponse(int status, const engine::AutoredriveView& v) {
  return JsonResponse(status, wire::AutoredriveToJson(v.policy, v.state, v.eligible));
}

}  // namespace

void HandleListAutoredrive(Call& call) {
  call.engine.ListAutoredrive(Answer<std::vector<engine::AutoredriveView>>(
      call.respond, [](std::vector<engine::AutoredriveView>& views) {
        boost::json::array out;
        for (const engine::AutoredriveView& v : views) {
          out.push_back(wire::AutoredriveToJson(v.policy, v.state, v.eligible));
        }
        return JsonResponse(200, out);
      }));
}

void HandleGetAutoredrive(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  call.engine.GetAutoredrive(std::move(*name), Answer<engine::AutoredriveView>(
                                                   call.respond, [](engine::AutoredriveView& v) {
                                                     return ViewResponse(200, v);
                                                   }));
}

void HandlePutAutoredrive(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<AutoredrivePolicy> policy = DecodePolicy(*body, std::move(*name));
  if (!policy.ok()) return call.Fail(policy.status());
  policy->updated_by = call.caller.actor;
  call.engine.PutAutoredrive(
      std::move(*policy),
      Answer<engine::PutAutoredriveResult>(call.respond, [](engine::PutAutoredriveResult& r) {
        return ViewResponse(r.created ? 201 : 200, r.view);
      }));
}

void HandleDeleteAutoredrive(Call& call) {
  Result<std::string> name = QueueName(call);
  if (!name.ok()) return call.Fail(name.status());
  call.engine.DeleteAutoredrive(std::move(*name), AnswerNoContent(call.respond));
}

}  // namespace redrive::api
