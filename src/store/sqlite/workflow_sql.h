// The workflows, workflow_jobs and job_dependencies tables: their SQL and the
// store operations on them (core/workflow.h), as free functions over a
// Connection shared by the read and the write transaction.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/workflow.h"
#include "store/sqlite/connection.h"
#include "store/store.h"

namespace redrive::store::sqlite::workflow_sql {

// Version 15 of the schema (sqlite_schema.cc).
extern const char kSchema[];
// Version 17: job_dependencies.met.
extern const char kMetSchema[];

// Reads.
Result<WorkflowView> GetWorkflow(Connection& conn, const std::string& id);
Result<std::vector<WorkflowView>> ListWorkflows(Connection& conn, const WorkflowFilter& f);
Result<std::vector<WorkflowJobRow>> ListWorkflowJobs(Connection& conn,
                                                     const std::string& workflow_id, int limit,
                                                     int offset);
Result<std::optional<WorkflowMember>> GetWorkflowMember(Connection& conn,
                                                        const std::string& job_id);
Result<JobDependencies> GetJobDependencies(Connection& conn, const std::string& job_id, int limit);
Result<std::optional<DependencyState>> GetDependencyState(Connection& conn,
                                                          const std::string& job_id);
Result<bool> DependsOnTransitively(Connection& conn, const std::string& job_id,
                                   const std::string& on_job_id, size_t max_jobs);

// Writes (inside a write transaction; SQLite's one writer makes the
// selects' "locks" hold trivially).
Status InsertWorkflow(Connection& conn, const Workflow& workflow,
                      const std::vector<WorkflowMember>& members);
Result<long long> InsertDependencies(Connection& conn, const std::vector<JobDependency>& edges);
Result<long long> MarkDependencyMet(Connection& conn, const std::string& job_id);
Result<std::vector<BlockedDependent>> SelectBlockedDependents(Connection& conn,
                                                              const std::string& job_id);
Result<std::vector<Job>> SelectWorkflowJobs(Connection& conn, const std::string& workflow_id,
                                            const std::vector<JobStatus>& statuses, int limit);

}  // namespace redrive::store::sqlite::workflow_sql
