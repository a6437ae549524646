// The operator's job routes: list, read, history, stats, cancel, retry,
// priority, payload repair.
#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <set>

#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "core/limits.h"
#include "wire/job_json.h"
#include "wire/queue_json.h"
#include "wire/workflow_json.h"

namespace redrive::api {
namespace {

constexpr size_t kMaxStatusIds = 100;

Result<engine::ListJobsParams> DecodeListJobs(const QueryParams& q) {
  engine::ListJobsParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.queue_name, QueryQueueName(q));
  REDRIVE_ASSIGN_OR_RETURN(p.status, QueryStatus(q));
  p.tag = QueryString(q, "tag");
  REDRIVE_ASSIGN_OR_RETURN(p.fingerprint, CheckFingerprint(QueryString(q, "fingerprint")));
  REDRIVE_ASSIGN_OR_RETURN(p.limit, QueryLimit(q, "limit", 100, 50));
  REDRIVE_RETURN_IF_ERROR(QueryFixedOrder(q, "created_at"));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> offset, QueryInt(q, "offset", 0, INT32_MAX));
  p.offset = static_cast<int>(offset.value_or(0));
  return p;
}

// "a,b,c" → distinct non-empty ids in request order.
Result<std::vector<std::string>> DecodeIds(const QueryParams& q) {
  auto it = q.find("ids");
  if (it == q.end()) return wire::MissingField("ids");
  std::vector<std::string> ids;
  std::set<std::string> seen;
  std::string_view rest = it->second;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string id(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (!id.empty() && seen.insert(id).second) ids.push_back(std::move(id));
  }
  if (ids.size() > kMaxStatusIds) {
    return Status::Validation("ids", "at most " + std::to_string(kMaxStatusIds) + " ids");
  }
  return ids;
}

Response JobsArray(const std::vector<Job>& jobs) {
  boost::json::array out;
  for (const Job& job : jobs) out.push_back(wire::JobSummaryToJson(job));
  return JsonResponse(200, out);
}

// GET /jobs/status answers in request order; unknown ids are left out.
Response StatusesInOrder(const std::vector<std::string>& ids, const std::vector<Job>& jobs) {
  boost::json::array out;
  for (const std::string& id : ids) {
    auto it = std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.id == id; });
    if (it != jobs.end()) out.push_back(wire::JobStatusEntryToJson(*it));
  }
  return JsonResponse(200, out);
}

auto JobEncoder(Role role) {
  return [include_payload = role != Role::kViewer](Job& job) {
    return JsonResponse(200, wire::JobToJson(job, {.include_payload = include_payload}));
  };
}

}  // namespace

void HandleListJobs(Call& call) {
  Result<engine::ListJobsParams> p = DecodeListJobs(call.query);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.ListJobs(std::move(*p), Answer<std::vector<Job>>(call.respond, JobsArray));
}

void HandleGetJob(Call& call) {
  // A key limited to some queues reads only their jobs (checked once read).
  call.engine.GetJobWithLinks(
      call.Param("id"), CallerScope(call.caller),
      Answer<engine::JobDependenciesView>(
          call.respond,
          [include_payload = call.role != Role::kViewer](engine::JobDependenciesView& v) {
            boost::json::object out = wire::JobToJson(v.job, {.include_payload = include_payload});
            wire::AddDependencyFields(v.workflow_id, v.links, v.dependencies_met, out);
            return JsonResponse(200, out);
          }));
}

void HandleJobStatuses(Call& call) {
  Result<std::vector<std::string>> ids = DecodeIds(call.query);
  if (!ids.ok()) return call.Fail(ids.status());
  if (ids->empty()) return call.respond(JsonResponse(200, boost::json::array()));
  std::vector<std::string> order = *ids;
  call.engine.JobStatuses(std::move(*ids),
                          Answer<std::vector<Job>>(call.respond, [order](std::vector<Job>& jobs) {
                            return StatusesInOrder(order, jobs);
                          }));
}

void HandleJobStats(Call& call) {
  Result<std::optional<std::string>> queue = QueryQueueName(call.query);
  if (!queue.ok()) return call.Fail(queue.status());
  call.engine.Stats(std::move(*queue), Answer<StatusCounts>(call.respond, [](StatusCounts& c) {
                      return JsonResponse(200, wire::JobStatsToJson(c));
                    }));
}

void HandleHistory(Call& call) {
  call.engine.History(call.Param("id"), Answer<std::vector<HistoryEntry>>(
                                            call.respond, [](std::vector<HistoryEntry>& entries) {
                                              boost::json::array out;
                                              for (const HistoryEntry& e : entries) {
                                                out.push_back(wire::HistoryEntryToJson(e));
                                              }
                                              return JsonResponse(200, out);
                                            }));
}

void HandleCancel(Call& call) {
  call.engine.Cancel(call.Param("id"), AnswerNoContent(call.respond));
}

void HandleRetry(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  engine::RetryParams p;
  p.job_id = call.Param("id");
  // Whether expires_at is in the future is the engine's check: it owns the clock.
  Result<std::optional<Instant>> expires_at = wire::FieldReader(*body).Time("expires_at");
  if (!expires_at.ok()) return call.Fail(expires_at.status());
  p.expires_at = *expires_at;
  Result<RetryBudget> budget = Budget(wire::FieldReader(*body));
  if (!budget.ok()) return call.Fail(budget.status());
  p.budget = *budget;
  Result<std::optional<std::string>> target = TargetQueue(wire::FieldReader(*body));
  if (!target.ok()) return call.Fail(target.status());
  p.target_queue = *target;
  call.engine.Retry(std::move(p), Answer<Job>(call.respond, JobEncoder(call.role)));
}

void HandleSetPriority(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<int64_t> priority =
      wire::FieldReader(*body).RequiredInt("priority", kMinPriority, kMaxPriority);
  if (!priority.ok()) return call.Fail(priority.status());
  call.engine.SetPriority(
      call.Param("id"), static_cast<int>(*priority),
      Answer<engine::PriorityChange>(call.respond, [](engine::PriorityChange& c) {
        return JsonResponse(200, boost::json::object{{"job_id", c.job_id},
                                                     {"old_priority", c.old_priority},
                                                     {"new_priority", c.new_priority}});
      }));
}

void HandleSetPayload(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<std::string> payload =
      RequiredPayload(wire::FieldReader(*body), call.options.limits.max_payload_bytes);
  if (!payload.ok()) return call.Fail(payload.status());
  call.engine.UpdatePayload(call.Param("id"), std::move(*payload),
                            Answer<Job>(call.respond, JobEncoder(call.role)));
}

}  // namespace redrive::api
