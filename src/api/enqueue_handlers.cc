// POST /jobs and POST /jobs/bulk.
#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/field_rules.h"
#include "api/handlers.h"
#include "api/job_decoding.h"
#include "api/responses.h"
#include "api/workflow_decoding.h"
#include "wire/error_json.h"

namespace redrive::api {
namespace {

// A bulk request after decoding: the valid items (for the engine) and the
// failures (reported as they are, never dropped).
struct BulkDecoded {
  engine::BulkEnqueueParams params;
  std::vector<size_t> original_index;  // of params.jobs[i] in the request
  boost::json::array failed;
  size_t total = 0;
};

Result<JobDefaults> DecodeBulkDefaults(const wire::FieldReader& r) {
  JobDefaults d;
  REDRIVE_ASSIGN_OR_RETURN(d.priority, Priority(r, "default_priority"));
  REDRIVE_ASSIGN_OR_RETURN(d.max_retries, MaxRetries(r, "default_max_retries"));
  REDRIVE_ASSIGN_OR_RETURN(d.timeout_seconds, TimeoutSeconds(r, "default_timeout_seconds"));
  return d;
}

// {"index", "error": message (what Spooled's clients read), "code",
// "details"?}.
boost::json::object FailedItem(size_t index, const Status& status) {
  boost::json::object item{{"index", index}, {"error", status.message()}};
  for (auto& [key, value] : wire::ErrorToJson(status)) {
    if (key != "message") item[key] = value;
  }
  return item;
}

void DecodeBulkItem(const boost::json::value& item, size_t index, const std::string& queue_name,
                    const JobDefaults& defaults, const ServerLimits& limits,
                    const WebhookUrlRules& urls, BulkDecoded& out) {
  std::string path = "jobs[" + std::to_string(index) + "]";
  if (!item.is_object()) {
    out.failed.push_back(FailedItem(index, Status::Validation(path, path + " must be an object")));
    return;
  }
  const wire::FieldReader r(item.get_object(), path);
  Status parent = NotSupported(r, "parent_job_id",
                               "a job that waits for another is enqueued alone (POST /jobs) or "
                               "in a workflow (POST /workflows)");
  if (!parent.ok()) {
    out.failed.push_back(FailedItem(index, parent));
    return;
  }
  Result<engine::EnqueueParams> p = DecodeJobFields(r, limits, urls, defaults);
  if (!p.ok()) {
    out.failed.push_back(FailedItem(index, p.status()));
    return;
  }
  p->queue_name = queue_name;
  out.params.jobs.push_back(std::move(*p));
  out.original_index.push_back(index);
}

Result<BulkDecoded> DecodeBulk(const boost::json::object& body, const ServerLimits& limits,
                               const WebhookUrlRules& urls) {
  wire::FieldReader r(body);
  REDRIVE_ASSIGN_OR_RETURN(std::string queue_name, RequiredQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* jobs, r.Array("jobs"));
  if (jobs == nullptr) return wire::MissingField("jobs");
  if (jobs->size() > kMaxBulkJobs) {
    return Status::Validation("jobs", "at most " + std::to_string(kMaxBulkJobs) + " jobs");
  }
  REDRIVE_ASSIGN_OR_RETURN(JobDefaults defaults, DecodeBulkDefaults(r));
  BulkDecoded out;
  out.total = jobs->size();
  for (size_t i = 0; i < jobs->size(); ++i) {
    DecodeBulkItem((*jobs)[i], i, queue_name, defaults, limits, urls, out);
  }
  return out;
}

// Merges the engine's results (indexes into the valid items) with the
// decoding failures into the contract's answer, both sorted by request index.
Response EncodeBulk(const std::vector<engine::BulkItemResult>& results,
                    const std::vector<size_t>& original_index, const boost::json::array& failed,
                    size_t total) {
  std::vector<std::pair<size_t, const engine::BulkItemResult*>> ordered;
  for (const engine::BulkItemResult& r : results) {
    ordered.emplace_back(original_index.at(r.index), &r);
  }
  std::sort(ordered.begin(), ordered.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  boost::json::array succeeded;
  // Items the engine refused (e.g. an expires_at that passed meanwhile) join
  // the decoding failures: nothing is ever reported inserted that was not.
  boost::json::array all_failed = failed;
  for (const auto& [index, r] : ordered) {
    if (!r->error.ok()) {
      all_failed.push_back(FailedItem(index, r->error));
      continue;
    }
    succeeded.push_back({{"index", index}, {"job_id", r->job_id}, {"created", r->created}});
  }
  std::sort(all_failed.begin(), all_failed.end(),
            [](const boost::json::value& a, const boost::json::value& b) {
              return a.at("index").to_number<int64_t>() < b.at("index").to_number<int64_t>();
            });
  const size_t success_count = succeeded.size();
  const size_t failure_count = all_failed.size();
  return JsonResponse(200, boost::json::object{{"succeeded", std::move(succeeded)},
                                               {"failed", std::move(all_failed)},
                                               {"total", total},
                                               {"success_count", success_count},
                                               {"failure_count", failure_count}});
}

}  // namespace

void HandleEnqueue(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::EnqueueParams> p =
      DecodeEnqueue(*body, call.options.limits, WebhookUrlRulesOf(call.options));
  if (!p.ok()) return call.Fail(p.status());
  Result<std::optional<std::string>> parent = DecodeParentJobId(*body);
  if (!parent.ok()) return call.Fail(parent.status());
  if (Status st = CheckQueueScope(call.caller, p->queue_name); !st.ok()) return call.Fail(st);
  auto answer = Answer<engine::EnqueueResult>(call.respond, [](engine::EnqueueResult& r) {
    return JsonResponse(r.created ? 201 : 200,
                        boost::json::object{{"id", r.id}, {"created", r.created}});
  });
  if (*parent) {
    // Spooled's parent_job_id: the job waits for its parent's completion.
    return call.engine.EnqueueAfter(std::move(*p), {**parent}, "parent_job_id",
                                    CallerScope(call.caller), std::move(answer));
  }
  call.engine.Enqueue(std::move(*p), std::move(answer));
}

void HandleEnqueueBulk(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<BulkDecoded> decoded =
      DecodeBulk(*body, call.options.limits, WebhookUrlRulesOf(call.options));
  if (!decoded.ok()) return call.Fail(decoded.status());
  BulkDecoded d = std::move(*decoded);
  if (!d.params.jobs.empty()) {
    // One queue per bulk request: its items all carry it.
    Status st = CheckQueueScope(call.caller, d.params.jobs.front().queue_name);
    if (!st.ok()) return call.Fail(st);
  }
  if (d.params.jobs.empty()) return call.respond(EncodeBulk({}, {}, d.failed, d.total));
  call.engine.EnqueueBulk(
      std::move(d.params),
      Answer<std::vector<engine::BulkItemResult>>(
          call.respond, [index = std::move(d.original_index), failed = std::move(d.failed),
                         total = d.total](std::vector<engine::BulkItemResult>& results) {
            return EncodeBulk(results, index, failed, total);
          }));
}

}  // namespace redrive::api
