// Client: workflows (/api/v1/workflows) and the dependencies of single jobs
// (/api/v1/jobs/{id}/dependencies).
#include <boost/json/object.hpp>

#include "redrive/client.h"
#include "sdk/client_impl.h"
#include "sdk/request_encoding.h"
#include "sdk/response_decoding.h"

namespace redrive::sdk {
namespace {

std::string PageQuery(const WorkflowJobsPage& page) {
  Query q;
  q.Add("limit", page.limit).Add("offset", page.offset);
  return q.str();
}

}  // namespace

Result<CreatedWorkflow> Client::CreateWorkflow(const CreateWorkflowRequest& request) {
  return impl_->Call<CreatedWorkflow>("POST", "/workflows", CreateWorkflowToJson(request),
                                      &CreatedWorkflowFromJson);
}

Result<std::vector<Workflow>> Client::ListWorkflows(const ListWorkflowsFilter& filter) {
  Query q;
  if (filter.status) {
    q.Add("status", std::optional<std::string>(WorkflowStatusName(*filter.status)));
  }
  q.Add("limit", filter.limit).Add("offset", filter.offset);
  return impl_->CallList<Workflow>("/workflows" + q.str(), &WorkflowFromJson);
}

Result<Workflow> Client::GetWorkflow(const std::string& id) {
  return impl_->Call<Workflow>("GET", PathWithId("/workflows/", id), std::nullopt,
                               &WorkflowFromJson);
}

Result<Workflow> Client::CancelWorkflow(const std::string& id) {
  return impl_->Call<Workflow>("POST", PathWithId("/workflows/", id, "/cancel"),
                               boost::json::object{}, &WorkflowFromJson);
}

Result<Workflow> Client::RetryWorkflow(const std::string& id) {
  return impl_->Call<Workflow>("POST", PathWithId("/workflows/", id, "/retry"),
                               boost::json::object{}, &WorkflowFromJson);
}

Result<std::vector<WorkflowJob>> Client::ListWorkflowJobs(const std::string& id,
                                                          const WorkflowJobsPage& page) {
  return impl_->CallList<WorkflowJob>(PathWithId("/workflows/", id, "/jobs") + PageQuery(page),
                                      &WorkflowJobFromJson);
}

Result<WorkflowJob> Client::GetWorkflowJob(const std::string& workflow_id,
                                           const std::string& job_id) {
  return impl_->Call<WorkflowJob>(
      "GET", PathWithId("/workflows/", workflow_id, "/jobs/") + PathWithId("", job_id),
      std::nullopt, &WorkflowJobFromJson);
}

Result<std::vector<WorkflowJobStatus>> Client::WorkflowJobStatuses(const std::string& id,
                                                                   const WorkflowJobsPage& page) {
  return impl_->CallList<WorkflowJobStatus>(
      PathWithId("/workflows/", id, "/jobs/status") + PageQuery(page), &WorkflowJobStatusFromJson);
}

Result<JobDependencyInfo> Client::GetJobDependencies(const std::string& job_id) {
  return impl_->Call<JobDependencyInfo>("GET", PathWithId("/jobs/", job_id, "/dependencies"),
                                        std::nullopt, &JobDependencyInfoFromJson);
}

Result<AddDependenciesResult> Client::AddJobDependencies(const std::string& job_id,
                                                         const std::vector<std::string>& depends_on,
                                                         std::optional<DependencyMode> mode) {
  return impl_->Call<AddDependenciesResult>("POST", PathWithId("/jobs/", job_id, "/dependencies"),
                                            AddDependenciesToJson(depends_on, mode),
                                            &AddDependenciesResultFromJson);
}

}  // namespace redrive::sdk
