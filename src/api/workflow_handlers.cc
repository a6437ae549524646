// Workflows and job dependencies: list, create, read, cancel, retry, a
// workflow's jobs, and the dependencies of one job. Decoding is
// workflow_decoding.h; the JSON is wire/workflow_json.h.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>

#include "api/handlers.h"
#include "api/request_decoding.h"
#include "api/responses.h"
#include "api/workflow_decoding.h"
#include "wire/workflow_json.h"

namespace redrive::api {
namespace {

// A workflow's jobs are listed up to this many per page.
constexpr int kMaxJobsPage = 1000;

Response WorkflowAnswer(WorkflowView& w) { return JsonResponse(200, wire::WorkflowToJson(w)); }

Result<std::pair<int, int>> JobsPage(const QueryParams& query) {
  REDRIVE_ASSIGN_OR_RETURN(int limit, QueryLimit(query, "limit", kMaxJobsPage, kMaxJobsPage));
  REDRIVE_ASSIGN_OR_RETURN(std::optional<int64_t> offset, QueryInt(query, "offset", 0, INT32_MAX));
  return std::pair<int, int>(limit, static_cast<int>(offset.value_or(0)));
}

}  // namespace

void HandleListWorkflows(Call& call) {
  Result<engine::ListWorkflowsParams> p = DecodeListWorkflows(call.query);
  if (!p.ok()) return call.Fail(p.status());
  call.engine.ListWorkflows(std::move(*p), Answer<std::vector<WorkflowView>>(
                                               call.respond, [](std::vector<WorkflowView>& ws) {
                                                 boost::json::array out;
                                                 for (const WorkflowView& w : ws)
                                                   out.push_back(wire::WorkflowToJson(w));
                                                 return JsonResponse(200, out);
                                               }));
}

void HandleCreateWorkflow(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::CreateWorkflowParams> p =
      DecodeCreateWorkflow(*body, call.options.limits, WebhookUrlRulesOf(call.options));
  if (!p.ok()) return call.Fail(p.status());
  for (const engine::WorkflowJobParams& j : p->jobs) {
    if (Status st = CheckQueueScope(call.caller, j.job.queue_name); !st.ok()) return call.Fail(st);
  }
  call.engine.CreateWorkflow(
      std::move(*p),
      Answer<engine::CreateWorkflowResult>(call.respond, [](engine::CreateWorkflowResult& r) {
        boost::json::array ids;
        for (const engine::WorkflowJobId& j : r.job_ids) {
          ids.push_back(boost::json::object{{"key", j.key}, {"job_id", j.job_id}});
        }
        return JsonResponse(201,
                            boost::json::object{{"workflow_id", r.workflow_id},
                                                {"job_ids", std::move(ids)},
                                                {"status", WorkflowStatusName(r.workflow.status())},
                                                {"workflow", wire::WorkflowToJson(r.workflow)}});
      }));
}

void HandleGetWorkflow(Call& call) {
  call.engine.GetWorkflow(call.Param("id"), Answer<WorkflowView>(call.respond, WorkflowAnswer));
}

void HandleCancelWorkflow(Call& call) {
  call.engine.CancelWorkflow(call.Param("id"), Answer<WorkflowView>(call.respond, WorkflowAnswer));
}

void HandleRetryWorkflow(Call& call) {
  call.engine.RetryWorkflow(call.Param("id"), Answer<WorkflowView>(call.respond, WorkflowAnswer));
}

void HandleWorkflowJobs(Call& call) {
  Result<std::pair<int, int>> page = JobsPage(call.query);
  if (!page.ok()) return call.Fail(page.status());
  call.engine.ListWorkflowJobs(call.Param("id"), page->first, page->second,
                               Answer<std::vector<WorkflowJobRow>>(
                                   call.respond, [include_payload = call.role != Role::kViewer](
                                                     std::vector<WorkflowJobRow>& rows) {
                                     boost::json::array out;
                                     for (const WorkflowJobRow& r : rows) {
                                       out.push_back(wire::WorkflowJobToJson(r, include_payload));
                                     }
                                     return JsonResponse(200, out);
                                   }));
}

void HandleWorkflowJob(Call& call) {
  call.engine.GetWorkflowJob(
      call.Param("id"), call.Param("job_id"),
      Answer<WorkflowJobRow>(
          call.respond, [include_payload = call.role != Role::kViewer](WorkflowJobRow& r) {
            return JsonResponse(200, wire::WorkflowJobToJson(r, include_payload));
          }));
}

void HandleWorkflowJobStatus(Call& call) {
  Result<std::pair<int, int>> page = JobsPage(call.query);
  if (!page.ok()) return call.Fail(page.status());
  call.engine.ListWorkflowJobs(
      call.Param("id"), page->first, page->second,
      Answer<std::vector<WorkflowJobRow>>(call.respond, [](std::vector<WorkflowJobRow>& rows) {
        boost::json::array out;
        for (const WorkflowJobRow& r : rows) out.push_back(wire::WorkflowJobStatusToJson(r));
        return JsonResponse(200, out);
      }));
}

void HandleGetDependencies(Call& call) {
  call.engine.GetJobDependencies(
      call.Param("id"), CallerScope(call.caller),
      Answer<engine::JobDependenciesView>(call.respond, [](engine::JobDependenciesView& v) {
        boost::json::array deps, dependents;
        for (const DependencyLink& l : v.links.dependencies) {
          deps.push_back(wire::DependencyLinkToJson(l));
        }
        for (const DependencyLink& l : v.links.dependents) {
          dependents.push_back(wire::DependencyLinkToJson(l));
        }
        return JsonResponse(
            200, boost::json::object{{"job_id", v.job.id},
                                     {"status", JobStatusName(v.job.status)},
                                     {"dependency_mode", DependencyModeName(v.links.mode)},
                                     {"dependencies_met", v.dependencies_met},
                                     {"readiness", ReadinessName(v.readiness)},
                                     {"dependencies", std::move(deps)},
                                     {"dependents", std::move(dependents)}});
      }));
}

void HandleAddDependencies(Call& call) {
  Result<boost::json::object> body = call.Body();
  if (!body.ok()) return call.Fail(body.status());
  Result<engine::AddDependenciesParams> p = DecodeAddDependencies(*body);
  if (!p.ok()) return call.Fail(p.status());
  p->job_id = call.Param("id");
  p->scope = CallerScope(call.caller);
  call.engine.AddJobDependencies(
      std::move(*p),
      Answer<engine::AddDependenciesResult>(call.respond, [](engine::AddDependenciesResult& r) {
        boost::json::array edges;
        for (const JobDependency& e : r.dependencies) {
          edges.push_back(boost::json::object{{"job_id", e.job_id},
                                              {"depends_on_job_id", e.depends_on_job_id},
                                              {"dependency_type", "completion"},
                                              {"dependency_mode", DependencyModeName(e.mode)}});
        }
        // The SDK's {added, dependencies} and the backend's
        // {dependencies_added, dependencies_met}.
        return JsonResponse(200, boost::json::object{{"added", r.added},
                                                     {"dependencies_added", r.added},
                                                     {"dependencies_met", r.dependencies_met},
                                                     {"status", JobStatusName(r.status)},
                                                     {"dependencies", std::move(edges)}});
      }));
}

}  // namespace redrive::api
