#include "api/workflow_decoding.h"

#include <algorithm>
#include <iterator>
#include <span>
#include <string_view>

#include "api/field_rules.h"
#include "api/job_decoding.h"
#include "api/request_decoding.h"
#include "wire/field_reader.h"

namespace redrive::api {
namespace {

constexpr std::string_view kWorkflowFields[] = {"name", "description", "jobs", "metadata"};
// A workflow job: its graph, its queue and the job fields of POST /jobs that
// fit a job created with others (no idempotency key: a workflow is created
// whole, once).
constexpr std::string_view kJobFields[] = {
    "key",      "queue_name",  "payload",         "depends_on",   "dependency_mode",
    "priority", "max_retries", "timeout_seconds", "scheduled_at", "expires_at",
    "tags",     "backoff",     "crash_limit",     "max_snoozes",  "completion_webhook"};
constexpr std::string_view kAddFields[] = {"depends_on_job_ids", "depends_on", "dependency_mode",
                                           "dependency_type"};

constexpr size_t kMaxNameLength = 255;
constexpr size_t kMaxDescriptionLength = 1000;
constexpr size_t kMaxJobIdLength = 255;
constexpr int kMaxListLimit = 100;

// A key of `o` not in `known`: refused rather than ignored.
Status CheckKnown(const boost::json::object& o, std::span<const std::string_view> known,
                  const std::string& prefix) {
  for (const auto& [key, value] : o) {
    if (std::ranges::find(known, std::string_view(key)) == known.end()) {
      const std::string shown(std::string_view(key).substr(0, 64));
      return Status::Validation(prefix + shown, "unknown field '" + shown + "'");
    }
  }
  return Status::Ok();
}

Result<DependencyMode> Mode(const wire::FieldReader& r) {
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> text, r.String("dependency_mode", 1, 8));
  if (!text) return DependencyMode::kAll;
  std::optional<DependencyMode> mode = ParseDependencyMode(*text);
  if (!mode) return Status::Validation(r.Path("dependency_mode"), "dependency_mode is all or any");
  return *mode;
}

// An array of 1..max_items strings of 1..max_length bytes; empty when absent.
Result<std::vector<std::string>> Strings(const wire::FieldReader& r, std::string_view key,
                                         size_t max_items, size_t max_length) {
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* items, r.Array(key));
  std::vector<std::string> out;
  if (items == nullptr) return out;
  if (items->size() > max_items) {
    return Status::Validation(
        r.Path(key), std::string(key) + " holds at most " + std::to_string(max_items) + " items");
  }
  for (size_t i = 0; i < items->size(); ++i) {
    const boost::json::value& v = (*items)[i];
    const std::string path = r.Path(key) + "[" + std::to_string(i) + "]";
    if (!v.is_string() || v.get_string().empty() || v.get_string().size() > max_length) {
      return Status::Validation(
          path, path + " must be a string of 1 to " + std::to_string(max_length) + " characters");
    }
    out.emplace_back(v.get_string());
  }
  return out;
}

Result<engine::WorkflowJobParams> DecodeJob(const boost::json::value& item, size_t i,
                                            const ServerLimits& limits,
                                            const WebhookUrlRules& urls) {
  const std::string path = "jobs[" + std::to_string(i) + "]";
  if (!item.is_object()) return Status::Validation(path, path + " must be an object");
  const boost::json::object& o = item.get_object();
  REDRIVE_RETURN_IF_ERROR(CheckKnown(o, kJobFields, path + "."));
  wire::FieldReader r(o, path);
  engine::WorkflowJobParams j;
  REDRIVE_ASSIGN_OR_RETURN(j.key, r.RequiredString("key", 1, kMaxWorkflowKeyLength));
  REDRIVE_ASSIGN_OR_RETURN(std::string queue_name, RequiredQueueName(r));
  REDRIVE_ASSIGN_OR_RETURN(j.job, DecodeJobFields(r, limits, urls));
  j.job.queue_name = std::move(queue_name);
  REDRIVE_ASSIGN_OR_RETURN(j.depends_on,
                           Strings(r, "depends_on", kMaxWorkflowJobs, kMaxWorkflowKeyLength));
  REDRIVE_ASSIGN_OR_RETURN(j.mode, Mode(r));
  return j;
}

}  // namespace

Result<engine::CreateWorkflowParams> DecodeCreateWorkflow(const boost::json::object& body,
                                                          const ServerLimits& limits,
                                                          const WebhookUrlRules& urls) {
  REDRIVE_RETURN_IF_ERROR(CheckKnown(body, kWorkflowFields, ""));
  wire::FieldReader r(body);
  engine::CreateWorkflowParams p;
  REDRIVE_ASSIGN_OR_RETURN(p.name, r.RequiredString("name", 1, kMaxNameLength));
  REDRIVE_ASSIGN_OR_RETURN(p.description, r.String("description", 0, kMaxDescriptionLength));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> metadata,
                           ObjectText(r, "metadata", limits.max_payload_bytes));
  p.metadata_json = metadata.value_or("{}");
  REDRIVE_ASSIGN_OR_RETURN(const boost::json::array* jobs, r.Array("jobs"));
  if (jobs == nullptr || jobs->empty() || jobs->size() > kMaxWorkflowJobs) {
    return Status::Validation(
        "jobs", "jobs must be an array of 1 to " + std::to_string(kMaxWorkflowJobs) + " jobs");
  }
  p.jobs.reserve(jobs->size());
  for (size_t i = 0; i < jobs->size(); ++i) {
    REDRIVE_ASSIGN_OR_RETURN(engine::WorkflowJobParams j, DecodeJob((*jobs)[i], i, limits, urls));
    p.jobs.push_back(std::move(j));
  }
  return p;
}

Result<engine::ListWorkflowsParams> DecodeListWorkflows(const QueryParams& query) {
  engine::ListWorkflowsParams p;
  if (std::optional<std::string> status = QueryString(query, "status")) {
    p.status = ParseWorkflowStatus(*status);
    if (!p.status) {
      return Status::Validation("status",
                                "status is pending, running, completed, failed or cancelled");
    }
  }
  REDRIVE_ASSIGN_OR_RETURN(p.limit, QueryLimit(query, "limit", kMaxListLimit, 50));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> offset, QueryInt(query, "offset", 0, INT32_MAX));
  p.offset = static_cast<int>(offset.value_or(0));
  return p;
}

Result<engine::AddDependenciesParams> DecodeAddDependencies(const boost::json::object& body) {
  REDRIVE_RETURN_IF_ERROR(CheckKnown(body, kAddFields, ""));
  wire::FieldReader r(body);
  engine::AddDependenciesParams p;
  // The SDK's depends_on_job_ids, or the backend's depends_on: one of them.
  const bool sdk = r.Find("depends_on_job_ids") != nullptr;
  if (sdk && r.Find("depends_on") != nullptr) {
    return Status::Validation("depends_on", "give depends_on_job_ids or depends_on, not both");
  }
  const std::string_view key = sdk ? "depends_on_job_ids" : "depends_on";
  REDRIVE_ASSIGN_OR_RETURN(p.depends_on, Strings(r, key, kMaxAddedDependencies, kMaxJobIdLength));
  if (p.depends_on.empty()) {
    return Status::Validation(
        std::string(key),
        std::string(key) + " must name 1 to " + std::to_string(kMaxAddedDependencies) + " jobs");
  }
  REDRIVE_ASSIGN_OR_RETURN(p.mode, Mode(r));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<std::string> type, r.String("dependency_type", 1, 32));
  if (type && *type != "completion") {
    return Status::Validation("dependency_type",
                              "dependency_type is completion: a dependency is met when its job "
                              "completes");
  }
  return p;
}

Result<std::optional<std::string>> DecodeParentJobId(const boost::json::object& body) {
  wire::FieldReader r(body);
  return r.String("parent_job_id", 1, kMaxJobIdLength);
}

}  // namespace redrive::api
