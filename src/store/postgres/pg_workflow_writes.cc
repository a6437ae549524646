// PgWriteTx's workflow and dependency operations: forwards to workflow_sql;
// the jobs its selects lock are remembered as locked (GuardHolds), as every
// locking read of a job is.
#include "store/postgres/pg_workflow_sql.h"
#include "store/postgres/pg_write_tx.h"

namespace redrive::store::postgres {

Status PgWriteTx::InsertWorkflow(const Workflow& workflow,
                                 const std::vector<WorkflowMember>& members) {
  return workflow_sql::InsertWorkflow(*held, workflow, members);
}

Result<long long> PgWriteTx::InsertDependencies(const std::vector<JobDependency>& edges) {
  // An edge not met may wait for a job read as awaited by none.
  for (const JobDependency& e : edges) {
    auto it = locked_.find(e.depends_on_job_id);
    if (it != locked_.end()) it->second.awaited.reset();
  }
  return workflow_sql::InsertDependencies(*held, edges);
}

Result<long long> PgWriteTx::MarkDependencyMet(const std::string& job_id) {
  auto it = locked_.find(job_id);
  if (it != locked_.end() && it->second.awaited == false) return 0;
  REDRIVE_ASSIGN_OR_RETURN(long long marked, workflow_sql::MarkDependencyMet(*held, job_id));
  if (it != locked_.end()) it->second.awaited = false;
  return marked;
}

Result<std::vector<BlockedDependent>> PgWriteTx::SelectBlockedDependents(
    const std::string& job_id) {
  REDRIVE_ASSIGN_OR_RETURN(std::vector<BlockedDependent> out,
                           workflow_sql::SelectBlockedDependents(*held, job_id));
  for (const BlockedDependent& d : out) Wrote(d.job);
  return out;
}

Result<std::vector<Job>> PgWriteTx::SelectWorkflowJobs(const std::string& workflow_id,
                                                       const std::vector<JobStatus>& statuses,
                                                       int limit) {
  return Locked(workflow_sql::SelectWorkflowJobs(*held, workflow_id, statuses, limit));
}

}  // namespace redrive::store::postgres
