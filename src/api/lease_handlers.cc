// The worker's job loop: claim, heartbeat, complete, fail, ack.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/job_decoding.h"
#include "api/responses.h"
#include "wire/job_json.h"
#include "wire/time_json.h"

namespace redrive::api {
namespace {

// worker_id and the job's lease_id: the fencing pair every lease call
// presents. lease_id may be left out (Spooled's SDK omits it): then worker_id
// alone must name the job's current holder (core's CheckLease).
Status DecodeHolder(const wire::FieldReader& r, std::string& worker_id,
                    std::optional<std::string>& lease_id) {
  REDRIVE_ASSIGN_OR_RETURN(worker_id, r.RequiredString("worker_id", 1, 255));
  REDRIVE_ASSIGN_OR_RETURN(lease_id, r.String("lease_id", 1, 255));
  return Status::Ok();
}

Result<engine::ClaimParams> DecodeClaim(const boost::json::object& body,
                                        const ServerLimits& limits) {
  wire::FieldReader r(body);
  engine::ClaimParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.queue_name, RequiredQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(p.worker_id, r.RequiredString("worker_id", 1, 255));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> limit, r.Int("limit", 1, kMaxClaimLimit));
  p.limit = static_cast<int>(limit.value_or(1));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int> lease, LeaseSeconds(r));
  p.lease_duration = std::chrono::seconds(lease.value_or(kDefaultLeaseSeconds));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> wait, r.Int("wait_ms", 0, kMaxWaitMs));
  p.wait = std::chrono::milliseconds(wait.value_or(0));
  REDRIVE_ASSIGN_OR_RETURN(p.acks, DecodeAcks(r, limits));
  return p;
}

Result<engine::HeartbeatParams> DecodeHeartbeat(const boost::json::object& body) {
  wire::FieldReader r(body);
  engine::HeartbeatParams p;
  REDRIVE_RETURN_IF_ERROR(DecodeHolder(r, p.worker_id, p.lease_id));
  REDRIVE_ASSIGN_OR_RETURN(
      int64_t lease, r.RequiredInt("lease_duration_secs", kMinLeaseSeconds, kMaxLeaseSeconds));
  p.lease_duration = std::chrono::seconds(lease);
  return p;
}

Result<engine::CompleteParams> DecodeComplete(const boost::json::object& body,
                                              const ServerLimits& limits) {
  wire::FieldReader r(body);
  engine::CompleteParams p;
  REDRIVE_RETURN_IF_ERROR(DecodeHolder(r, p.worker_id, p.lease_id));
  REDRIVE_ASSIGN_OR_RETURN(p.result_json, OptionalResult(r, limits.max_payload_bytes));
  return p;
}

Result<engine::FailParams> DecodeFail(const boost::json::object& body) {
  wire::FieldReader r(body);
  engine::FailParams p;
  REDRIVE_RETURN_IF_ERROR(DecodeHolder(r, p.worker_id, p.lease_id));
  REDRIVE_ASSIGN_OR_RETURN(p.error, ErrorMessage(r));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<bool> no_retry, r.Bool("no_retry"));
  p.no_retry = no_retry.value_or(false);
  REDRIVE_ASSIGN_OR_RETURN(p.retry_after, RetryAfter(r));
  REDRIVE_ASSIGN_OR_RETURN(p.details_json, FailDetails(r));
  return p;
}

// The fields of a failure's answer, POST /jobs/{id}/fail's and a failure
// ack's alike: will_retry, status, retry_count, then scheduled_at (a retry)
// or dead_reason (dead-lettered).
void PutFailOutcome(const engine::FailOutcome& f, boost::json::object& out) {
  out["will_retry"] = f.will_retry;
  out["status"] = JobStatusName(f.status);
  out["retry_count"] = f.retry_count;
  if (f.scheduled_at) out["scheduled_at"] = wire::TimeToJson(*f.scheduled_at);
  if (f.dead_reason != DeadReason::kNone)
    out["dead_reason"] = wire::DeadReasonToJson(f.dead_reason);
}

// {"id", "success", "status"?, "code"?, "message"?}, and a failure's fields
// (PutFailOutcome) when it was recorded.
boost::json::array AckResultsToJson(const std::vector<engine::AckItemResult>& results) {
  boost::json::array out;
  for (const engine::AckItemResult& r : results) {
    boost::json::object item{{"id", r.job_id}, {"success", r.status.ok()}};
    if (r.new_status) item["status"] = JobStatusName(*r.new_status);
    if (r.failure) PutFailOutcome(*r.failure, item);
    if (!r.status.ok()) {
      item["code"] = ErrorCodeName(r.status.code());
      item["message"] = r.status.message();
    }
    out.push_back(std::move(item));
  }
  return out;
}

Response EncodeFail(const engine::FailResult& r) {
  boost::json::object out{{"success", true}};
  PutFailOutcome(r.outcome, out);
  return JsonResponse(200, out);
}

}  // namespace

void HandleClaim(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::ClaimParams> p = DecodeClaim(*body, call.options.limits);
  if (!p.ok()) return call.Fail(p.status());
  if (Status st = CheckQueueScope(call.caller, p->queue_name); !st.ok()) return call.Fail(st);
  p->scope = CallerScope(call.caller);
  // Only a request that sent "acks" gets "results": plain Spooled claims keep
  // their exact shape.
  bool with_results = body->contains("acks");
  p->abandoned = call.request.client_gone;
  call.engine.Claim(std::move(*p), Answer<engine::ClaimResult>(
                                       call.respond, [with_results](engine::ClaimResult& r) {
                                         boost::json::array jobs;
                                         for (const Job& job : r.jobs) {
                                           jobs.push_back(wire::ClaimedJobToJson(job));
                                         }
                                         boost::json::object out{{"jobs", std::move(jobs)}};
                                         if (with_results) {
                                           out["results"] = AckResultsToJson(r.ack_results);
                                         }
                                         return JsonResponse(200, out);
                                       }));
}

void HandleJobHeartbeat(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::HeartbeatParams> p = DecodeHeartbeat(*body);
  if (!p.ok()) return call.Fail(p.status());
  p->job_id = call.Param("id");
  p->scope = CallerScope(call.caller);
  call.engine.Heartbeat(
      std::move(*p), Answer<Job>(call.respond, [](Job& job) {
        return JsonResponse(
            200, boost::json::object{{"success", true},
                                     {"lease_expires_at", wire::TimeToJson(job.lease_expires_at)}});
      }));
}

void HandleComplete(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::CompleteParams> p = DecodeComplete(*body, call.options.limits);
  if (!p.ok()) return call.Fail(p.status());
  p->job_id = call.Param("id");
  p->scope = CallerScope(call.caller);
  call.engine.Complete(std::move(*p), [respond = call.respond](Status status) {
    respond(status.ok() ? JsonResponse(200, boost::json::object{{"success", true}})
                        : ErrorResponse(status));
  });
}

void HandleFail(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::FailParams> p = DecodeFail(*body);
  if (!p.ok()) return call.Fail(p.status());
  p->job_id = call.Param("id");
  p->scope = CallerScope(call.caller);
  call.engine.Fail(std::move(*p), Answer<engine::FailResult>(call.respond, EncodeFail));
}

void HandleAck(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  wire::FieldReader r(*body);
  Result<std::string> worker_id = r.RequiredString("worker_id", 1, 255);
  if (!worker_id.ok()) return call.Fail(worker_id.status());
  if (r.Find("acks") == nullptr) return call.Fail(wire::MissingField("acks"));
  Result<std::vector<engine::Ack>> acks = DecodeAcks(r, call.options.limits);
  if (!acks.ok()) return call.Fail(acks.status());
  call.engine.AckBatch(
      std::move(*worker_id), std::move(*acks), CallerScope(call.caller),
      Answer<std::vector<engine::AckItemResult>>(
          call.respond, [](std::vector<engine::AckItemResult>& results) {
            return JsonResponse(200, boost::json::object{{"results", AckResultsToJson(results)}});
          }));
}

}  // namespace redrive::api
