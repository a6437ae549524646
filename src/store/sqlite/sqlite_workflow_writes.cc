// SqliteWriteTx's workflow and dependency operations: thin forwards to
// workflow_sql.
#include "store/sqlite/sqlite_write_tx.h"
#include "store/sqlite/workflow_sql.h"

namespace redrive::store::sqlite {

Status SqliteWriteTx::InsertWorkflow(const Workflow& workflow,
                                     const std::vector<WorkflowMember>& members) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return workflow_sql::InsertWorkflow(conn(), workflow, members);
}

Result<long long> SqliteWriteTx::InsertDependencies(const std::vector<JobDependency>& edges) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return workflow_sql::InsertDependencies(conn(), edges);
}

Result<long long> SqliteWriteTx::MarkDependencyMet(const std::string& job_id) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return workflow_sql::MarkDependencyMet(conn(), job_id);
}

Result<std::vector<BlockedDependent>> SqliteWriteTx::SelectBlockedDependents(
    const std::string& job_id) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return workflow_sql::SelectBlockedDependents(conn(), job_id);
}

Result<std::vector<Job>> SqliteWriteTx::SelectWorkflowJobs(const std::string& workflow_id,
                                                           const std::vector<JobStatus>& statuses,
                                                           int limit) {
  REDRIVE_RETURN_IF_ERROR(CheckOpen());
  return workflow_sql::SelectWorkflowJobs(conn(), workflow_id, statuses, limit);
}

}  // namespace redrive::store::sqlite
