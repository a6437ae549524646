#include "wire/workflow_json.h"

#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>

#include "wire/job_json.h"
#include "wire/queue_json.h"
#include "wire/time_json.h"

namespace redrive::wire {

boost::json::object WorkflowToJson(const WorkflowView& w) {
  const long long total = w.counts.total();
  // Whole percent, rounded down (100 only when every job completed): a
  // double would serialize as "2.5E1", valid JSON that no one wants to read.
  const long long progress = total == 0 ? 0 : 100 * w.counts.completed / total;
  boost::json::object out{{"id", w.workflow.id},
                          {"organization_id", kOrganizationId},
                          {"name", w.workflow.name},
                          {"status", WorkflowStatusName(w.status())},
                          {"total_jobs", total},
                          {"completed_jobs", w.counts.completed},
                          {"failed_jobs", FailedJobs(w.counts)},
                          {"progress_percent", progress},
                          {"created_at", TimeToJson(w.workflow.created_at)},
                          {"started_at", TimeToJson(w.started_at)},
                          {"completed_at", TimeToJson(w.finished_at)},
                          {"counts", StatusCountsToJson(w.counts)}};
  out["description"] = w.workflow.description ? boost::json::value(*w.workflow.description)
                                              : boost::json::value(nullptr);
  out["metadata"] = boost::json::parse(w.workflow.metadata_json);
  return out;
}

boost::json::object WorkflowJobToJson(const WorkflowJobRow& row, bool include_payload) {
  boost::json::object out = JobToJson(row.job, JobJsonOptions{.include_payload = include_payload});
  out["workflow_id"] = row.member.workflow_id;
  out["key"] = row.member.key;
  out["position"] = row.member.position;
  boost::json::array deps;
  for (const std::string& d : row.depends_on) deps.push_back(boost::json::value(d));
  out["depends_on"] = std::move(deps);
  out["dependency_mode"] = DependencyModeName(row.mode);
  out["attempt"] = row.job.attempts;
  out["error"] =
      row.job.last_error ? boost::json::value(*row.job.last_error) : boost::json::value(nullptr);
  return out;
}

void AddDependencyFields(const std::optional<std::string>& workflow_id,
                         const JobDependencies& links, bool dependencies_met,
                         boost::json::object& out) {
  const bool waits = !links.dependencies.empty();
  out["workflow_id"] = workflow_id ? boost::json::value(*workflow_id) : nullptr;
  out["parent_job_id"] = links.dependencies.size() == 1
                             ? boost::json::value(links.dependencies.front().job_id)
                             : nullptr;
  out["dependency_mode"] = waits ? boost::json::value(DependencyModeName(links.mode)) : nullptr;
  out["dependencies_met"] = dependencies_met;
}

boost::json::object WorkflowJobStatusToJson(const WorkflowJobRow& row) {
  return {
      {"job_id", row.job.id}, {"key", row.member.key}, {"status", JobStatusName(row.job.status)}};
}

boost::json::object DependencyLinkToJson(const DependencyLink& link) {
  return {{"job_id", link.job_id},
          {"queue_name", link.queue_name},
          {"status", JobStatusName(link.status)},
          {"dependency_type", "completion"}};
}

}  // namespace redrive::wire
