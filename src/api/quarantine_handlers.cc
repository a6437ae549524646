// Crashes and quarantine: a worker's snooze, and the operator's release of
// quarantined jobs (one, or a selection).
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/responses.h"
#include "wire/job_json.h"
#include "wire/time_json.h"

namespace redrive::api {
namespace {

// As many as DLQ retry takes in one synchronous request.
constexpr int kMaxReleaseLimit = 1000;

Result<engine::SnoozeParams> DecodeSnooze(const boost::json::object& body) {
  wire::FieldReader r(body);
  engine::SnoozeParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.worker_id, r.RequiredString("worker_id", 1, 255));
  REDRIVE_ASSIGN_OR_RETURN(p.lease_id, r.RequiredString("lease_id", 1, 255));
  REDRIVE_ASSIGN_OR_RETURN(int64_t delay, r.RequiredInt("delay_ms", 0, kMaxSnoozeDelayMs));
  p.delay = std::chrono::milliseconds(delay);
  return p;
}

Response EncodeSnooze(const Job& job) {
  return JsonResponse(200, boost::json::object{{"success", true},
                                               {"status", JobStatusName(job.status)},
                                               {"scheduled_at", wire::TimeToJson(job.scheduled_at)},
                                               {"snooze_count", job.snooze_count},
                                               {"max_snoozes", job.max_snoozes},
                                               {"retry_count", job.retry_count}});
}

Result<std::vector<std::string>> DecodeReleaseIds(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* items, r.Array("job_ids"));
  std::vector<std::string> ids;
  if (items == nullptr) return ids;
  if (items->size() > static_cast<size_t>(kMaxReleaseLimit)) {
    return Status::Validation("job_ids", "at most " + std::to_string(kMaxReleaseLimit) + " ids");
  }
  for (size_t i = 0; i < items->size(); ++i) {
    const std::string path = "job_ids[" + std::to_string(i) + "]";
    if (!(*items)[i].is_string() || (*items)[i].get_string().empty()) {
      return Status::Validation(path, path + " must be a non-empty string");
    }
    ids.emplace_back((*items)[i].get_string());
  }
  return ids;
}

Result<engine::BulkReleaseParams> DecodeBulkRelease(const boost::json::object& body) {
  wire::FieldReader r(body);
  engine::BulkReleaseParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.job_ids, DecodeReleaseIds(r));
  REDRIVE_ASSIGN_OR_RETURN(p.queue_name, OptionalQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(p.tag, r.String("tag", 1, 1024));
  REDRIVE_ASSIGN_OR_RETURN(p.fingerprint, DecodeFingerprint(r));
  const bool filtered = p.queue_name || p.tag || p.fingerprint;
  if (!p.job_ids.empty() && filtered) {
    return Status::Validation("job_ids",
                              "give job_ids or a filter (queue_name, tag, fingerprint), not both");
  }
  // Never "every quarantined job of every queue" by accident.
  if (p.job_ids.empty() && !filtered) {
    return Status::Validation(
        "job_ids", "the selector is empty: give job_ids, queue_name, tag or fingerprint");
  }
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> limit, r.Int("limit", 1, kMaxReleaseLimit));
  p.limit = static_cast<int>(limit.value_or(100));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<bool> dry_run, r.Bool("dry_run"));
  p.dry_run = dry_run.value_or(false);
  REDRIVE_ASSIGN_OR_RETURN(p.budget, Budget(r));
  REDRIVE_ASSIGN_OR_RETURN(p.target_queue, TargetQueue(r));
  return p;
}

Response EncodeBulkRelease(const engine::BulkReleaseResult& r) {
  boost::json::array ids;
  for (const std::string& id : r.released_ids) ids.push_back(boost::json::value(id));
  return JsonResponse(200, boost::json::object{{"dry_run", r.dry_run},
                                               {"selected_count", r.selected_count},
                                               {"released_count", r.released_ids.size()},
                                               {"released_ids", std::move(ids)}});
}

}  // namespace

void HandleSnooze(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::SnoozeParams> p = DecodeSnooze(*body);
  if (!p.ok()) return call.Fail(p.status());
  p->job_id = call.Param("id");
  p->scope = CallerScope(call.caller);
  call.engine.Snooze(std::move(*p), Answer<Job>(call.respond, EncodeSnooze));
}

void HandleRelease(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  engine::ReleaseParams p;
  p.job_id = call.Param("id");
  Result<RetryBudget> budget = Budget(wire::FieldReader(*body));
  if (!budget.ok()) return call.Fail(budget.status());
  p.budget = *budget;
  Result<std::optional<std::string>> target = TargetQueue(wire::FieldReader(*body));
  if (!target.ok()) return call.Fail(target.status());
  p.target_queue = *target;
  const bool include_payload = call.role != Role::kViewer;
  call.engine.ReleaseQuarantine(
      std::move(p), Answer<Job>(call.respond, [include_payload](Job& j) {
        return JsonResponse(200, wire::JobToJson(j, {.include_payload = include_payload}));
      }));
}

void HandleBulkRelease(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::BulkReleaseParams> p = DecodeBulkRelease(*body);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.ReleaseQuarantined(
      std::move(*p), Answer<engine::BulkReleaseResult>(call.respond, EncodeBulkRelease));
}

}  // namespace redrive::api
