// redrive.workflows, redrive.workflow_jobs and redrive.job_dependencies:
// their SQL and the store operations on them (core/workflow.h), as free
// functions over a connection shared by the read and the write transaction.
// Batches are one statement each (unnest of arrays), as InsertJobs is.
//
// Thread-safety: none; each call uses the connection of its transaction.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/workflow.h"
#include "store/postgres/pg_connection.h"
#include "store/store.h"

namespace redrive::store::postgres::workflow_sql {

// Version 16 of the schema (pg_schema.cc).
extern const char kSchema[];
// Version 18: job_dependencies.met (as SQLite's version 17).
extern const char kMetSchema[];

// Reads.
Result<WorkflowView> GetWorkflow(PgConnection& conn, const std::string& id);
Result<std::vector<WorkflowView>> ListWorkflows(PgConnection& conn, const WorkflowFilter& f);
Result<std::vector<WorkflowJobRow>> ListWorkflowJobs(PgConnection& conn,
                                                     const std::string& workflow_id, int limit,
                                                     int offset);
Result<std::optional<WorkflowMember>> GetWorkflowMember(PgConnection& conn,
                                                        const std::string& job_id);
Result<JobDependencies> GetJobDependencies(PgConnection& conn, const std::string& job_id,
                                           int limit);
Result<std::optional<DependencyState>> GetDependencyState(PgConnection& conn,
                                                          const std::string& job_id);
Result<bool> DependsOnTransitively(PgConnection& conn, const std::string& job_id,
                                   const std::string& on_job_id, size_t max_jobs);

// $1 a text[] of job ids: those of them that a dependency not yet met waits
// for (PgWriteTx asks it right after locking the jobs: see MarkDependencyMet).
extern const char kAwaitedJobs[];

// Writes (inside a write transaction). The selects lock FOR UPDATE.
Status InsertWorkflow(PgConnection& conn, const Workflow& workflow,
                      const std::vector<WorkflowMember>& members);
Result<long long> InsertDependencies(PgConnection& conn, const std::vector<JobDependency>& edges);
Result<long long> MarkDependencyMet(PgConnection& conn, const std::string& job_id);
Result<std::vector<BlockedDependent>> SelectBlockedDependents(PgConnection& conn,
                                                              const std::string& job_id);
Result<std::vector<Job>> SelectWorkflowJobs(PgConnection& conn, const std::string& workflow_id,
                                            const std::vector<JobStatus>& statuses, int limit);

}  // namespace redrive::store::postgres::workflow_sql
