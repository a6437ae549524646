// JSON of workflows and job dependencies (GET/POST /workflows...,
// /jobs/{id}/dependencies), in Spooled's field names plus Redrive's
// extensions (docs/api.md, "Workflows and dependencies").
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "core/workflow.h"

namespace redrive::wire {

// Spooled's WorkflowResponse {id, name, description, status, total_jobs,
// completed_jobs, failed_jobs, progress_percent, created_at, started_at,
// completed_at, metadata} and [ext] {counts}: its jobs by status.
boost::json::object WorkflowToJson(const WorkflowView& w);

// Spooled's WorkflowJob {id, workflow_id, key, queue_name, status, payload,
// result, error, depends_on, dependency_mode, priority, max_retries,
// attempt, timeout_seconds, created_at, started_at, completed_at}, plus
// every field of the Job (wire/job_json.h). Without payload for viewers.
boost::json::object WorkflowJobToJson(const WorkflowJobRow& row, bool include_payload);

// Spooled's Job fields about dependencies, added to GET /jobs/{id}'s Job:
// workflow_id (null outside a workflow), parent_job_id (the one job it
// waits for, when it waits for exactly one; else null), dependency_mode
// (null when it waits for nothing) and dependencies_met. `links` needs at
// most 2 dependencies listed.
void AddDependencyFields(const std::optional<std::string>& workflow_id,
                         const JobDependencies& links, bool dependencies_met,
                         boost::json::object& out);

// An item of GET /workflows/{id}/jobs/status: {job_id, key, status}.
boost::json::object WorkflowJobStatusToJson(const WorkflowJobRow& row);

// One end of a dependency: {job_id, queue_name, status, dependency_type}
// (dependency_type is always "completion": a dependency is met by its
// completion).
boost::json::object DependencyLinkToJson(const DependencyLink& link);

}  // namespace redrive::wire
