// Bulk operations (core/operation.h): POST /operations (or its dry run),
// GET /operations, GET /operations/{id}, POST /operations/{id}/cancel.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>
#include <set>

#include "api/dlq_selector.h"
#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/operator_route.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "wire/job_json.h"
#include "wire/operation_json.h"

namespace redrive::api {
namespace {

// As POST /jobs/dlq/retry's throttle.
constexpr double kMinRatePerSecond = 1e-4, kMaxRatePerSecond = 1e6;
constexpr size_t kMaxSelectorJobIdBytes = 128;
constexpr int kMaxListLimit = 100, kDefaultListLimit = 20;

// The selector's fields. Any other member is refused, so a misspelt field
// can never widen an operation to more jobs than meant.
const std::set<std::string, std::less<>> kSelectorFields = {
    "job_ids",      "queue_name",  "dead_reason", "tag",
    "error_prefix", "fingerprint", "dead_before", "status"};

// The actions that may select dead jobs by their dead-letter fields.
bool SelectsDead(OperationAction a) {
  return a == OperationAction::kRetry || a == OperationAction::kPurge ||
         a == OperationAction::kMove;
}

Status CheckJobIds(const std::vector<std::string>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    bool plain = !id.empty() && id.size() <= kMaxSelectorJobIdBytes;
    for (unsigned char c : id) plain = plain && c >= 0x20 && c != 0x7F;
    if (!plain) {
      const std::string path = "selector.job_ids[" + std::to_string(i) + "]";
      return Status::Validation(path, path + " must be 1 to " +
                                          std::to_string(kMaxSelectorJobIdBytes) +
                                          " bytes without control characters");
    }
  }
  return Status::Ok();
}

// The selector's status: one of the action's (ActionStatuses).
Result<std::optional<JobStatus>> DecodeStatus(const wire::FieldReader& r, OperationAction a) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> text, r.String("status", 1, 32));
  if (!text) return std::optional<JobStatus>();
  std::string names;
  for (JobStatus st : ActionStatuses(a))
    names += (names.empty() ? "" : ", ") + std::string(JobStatusName(st));
  std::optional<JobStatus> st = ParseJobStatus(*text);
  bool allowed = false;
  for (JobStatus s : ActionStatuses(a)) allowed = allowed || (st && *st == s);
  if (!allowed) {
    return Status::Validation(
        r.Path("status"),
        std::string("selector.status of a ") + OperationActionName(a) + " must be one of " + names);
  }
  return st;
}

Status DecodeSelector(const boost::json::object& body, engine::CreateOperationParams& p) {
  wire::FieldReader top(body);
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::object* selector, top.Object("selector"));
  if (selector == nullptr) return wire::MissingField("selector");
  for (const auto& member : *selector) {
    if (!kSelectorFields.contains(member.key())) {
      const std::string path = "selector." + std::string(member.key());
      return Status::Validation(path, path +
                                          " is not a selector field (fields: job_ids, "
                                          "queue_name, dead_reason, tag, error_prefix, "
                                          "fingerprint, dead_before, status)");
    }
  }
  wire::FieldReader r(*selector, "selector");
  REDRIVE_ASSIGN_OR_RETURN(p.job_ids, DecodeJobIds(r));
  REDRIVE_RETURN_IF_ERROR(CheckJobIds(p.job_ids));
  REDRIVE_ASSIGN_OR_RETURN(p.filter, DecodeBodyDeadLetterFilter(r));
  REDRIVE_ASSIGN_OR_RETURN(p.dead_before, r.Time("dead_before"));
  REDRIVE_ASSIGN_OR_RETURN(p.status, DecodeStatus(r, p.action));
  // A fingerprint is a dead-lettered or quarantined job's error class.
  if (p.action == OperationAction::kCancel && r.Find("fingerprint") != nullptr) {
    return Status::Validation(
        r.Path("fingerprint"),
        r.Path("fingerprint") + " selects dead or quarantined jobs: cancel does not take it");
  }
  if (!SelectsDead(p.action)) {
    for (const char* field : {"dead_reason", "dead_before"}) {
      if (r.Find(field) != nullptr) {
        return Status::Validation(r.Path(field), r.Path(field) +
                                                     " selects dead jobs: only retry, purge "
                                                     "and move take it");
      }
    }
  }
  const engine::DeadLetterFilter& f = p.filter;
  const bool empty = p.job_ids.empty() && !f.queue_name && !f.dead_reason && !f.tag &&
                     !f.error_prefix && !f.fingerprint && !p.dead_before;
  if (empty) {
    return Status::Validation(
        "selector",
        "selector must name the jobs: job_ids, or at least one of queue_name, dead_reason, tag, "
        "error_prefix, fingerprint, dead_before (an operation over every job is never meant)");
  }
  if (!p.job_ids.empty() && (f.queue_name || f.dead_reason || f.tag || f.error_prefix ||
                             f.fingerprint || p.dead_before)) {
    return Status::Validation("selector.job_ids",
                              "selector.job_ids names the jobs: give it alone, without filters");
  }
  p.selector_json = CanonicalJson(boost::json::serialize(*selector));
  return Status::Ok();
}

// budget (retry, release) and target_queue (retry, release: optional;
// move: required, and not the queue the selector names).
Status DecodeRedrive(const wire::FieldReader& r, engine::CreateOperationParams& p) {
  const bool redrives =
      p.action == OperationAction::kRetry || p.action == OperationAction::kRelease;
  const bool moves = p.action == OperationAction::kMove;
  if (!redrives && r.Find("budget") != nullptr) {
    return Status::Validation("budget", "budget applies only to retry and release operations");
  }
  if (!redrives && !moves && r.Find("target_queue") != nullptr) {
    return Status::Validation("target_queue",
                              "target_queue applies only to retry, release and move operations");
  }
  if (redrives) {
    REDRIVE_ASSIGN_OR_RETURN(p.budget, Budget(r));
  }
  if (redrives || moves) {
    REDRIVE_ASSIGN_OR_RETURN(p.target_queue, TargetQueue(r));
  }
  if (!moves) return Status::Ok();
  if (!p.target_queue) {
    return Status::Validation("target_queue",
                              "target_queue is required: the queue a move sends the jobs to");
  }
  if (p.filter.queue_name == p.target_queue) {
    return Status::Validation(
        "target_queue", "target_queue must differ from selector.queue_name (" + *p.target_queue +
                            "): the jobs are already there");
  }
  return Status::Ok();
}

Result<engine::CreateOperationParams> DecodeCreate(const Call& call,
                                                   const boost::json::object& body) {
  wire::FieldReader r(body);
  engine::CreateOperationParams p;
  REDRIVE_ASSIGN_OR_RETURN(std::string action, r.RequiredString("action", 1, 32));
  std::optional<OperationAction> parsed = ParseOperationAction(action);
  if (!parsed) {
    return Status::Validation("action", "action must be one of " + OperationActionNames());
  }
  p.action = *parsed;
  REDRIVE_RETURN_IF_ERROR(DecodeSelector(body, p));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<bool> dry_run, r.Bool("dry_run"));
  p.dry_run = dry_run.value_or(false);
  REDRIVE_ASSIGN_OR_RETURN(p.rate_per_second,
                           r.Number("rate_per_second", kMinRatePerSecond, kMaxRatePerSecond));
  REDRIVE_RETURN_IF_ERROR(DecodeRedrive(r, p));
  REDRIVE_ASSIGN_OR_RETURN(p.reason, r.String("reason", 0, kMaxOperationReasonBytes));
  if (!p.reason || p.reason->empty()) {
    // The audit log's reason header stands in for a body without one.
    REDRIVE_ASSIGN_OR_RETURN(p.reason, ReasonHeader(call.request));
  }
  p.created_by = call.caller.actor;
  return p;
}

Response EncodeCreate(const engine::CreateOperationResult& r, Instant now) {
  if (!r.dry_run) return JsonResponse(202, wire::OperationToJson(r.operation, now));
  boost::json::array sample;
  for (const Job& j : r.sample) sample.push_back(wire::JobSummaryToJson(j));
  return JsonResponse(
      200, boost::json::object{
               {"dry_run", true}, {"matched_count", r.matched}, {"sample", std::move(sample)}});
}

}  // namespace

void HandleCreateOperation(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::CreateOperationParams> p = DecodeCreate(call, *body);
  if (!p.ok()) return call.Fail(p.status());
  const Instant now = call.Now();
  call.engine.CreateOperation(
      std::move(*p),
      Answer<engine::CreateOperationResult>(
          call.respond, [now](engine::CreateOperationResult& r) { return EncodeCreate(r, now); }));
}

void HandleListOperations(Call& call) {
  Result<int> limit = QueryLimit(call.query, "limit", kMaxListLimit, kDefaultListLimit);
  if (!limit.ok()) return call.Fail(limit.status());
  Result<std::optional<int64_t>> offset = QueryInt(call.query, "offset", 0, INT32_MAX);
  if (!offset.ok()) return call.Fail(offset.status());
  const Instant now = call.Now();
  call.engine.ListOperations(
      *limit, static_cast<int>(offset->value_or(0)),
      Answer<std::vector<Operation>>(call.respond, [now](std::vector<Operation>& ops) {
        boost::json::array out;
        for (const Operation& op : ops) out.push_back(wire::OperationToJson(op, now));
        return JsonResponse(200, out);
      }));
}

void HandleGetOperation(Call& call) {
  const Instant now = call.Now();
  call.engine.GetOperation(call.Param("id"), Answer<Operation>(call.respond, [now](Operation& op) {
                             return JsonResponse(200, wire::OperationToJson(op, now));
                           }));
}

void HandleCancelOperation(Call& call) {
  const Instant now = call.Now();
  call.engine.CancelOperation(call.Param("id"),
                              Answer<Operation>(call.respond, [now](Operation& op) {
                                return JsonResponse(200, wire::OperationToJson(op, now));
                              }));
}

}  // namespace redrive::api
