// The SQL both stores use to read a workflow's counts and derived status
// from its jobs (core/workflow.h): the same text on SQLite and PostgreSQL,
// so a status filter means one thing everywhere. The CASE is
// DeriveWorkflowStatus written in SQL; the store conformance suite checks
// that the two agree for every status.
#pragma once

#include <string>

#include "core/job.h"

namespace redrive::store::workflow_status_sql {

// One count per job status, in kAllStatuses order, of the jobs joined as
// `jobs` (zero when a workflow has none): "count(CASE WHEN jobs.status =
// 'pending' THEN 1 END), ...".
inline std::string StatusCountColumns() {
  std::string out;
  for (JobStatus s : kAllStatuses) {
    if (!out.empty()) out += ", ";
    out += "count(CASE WHEN jobs.status = '" + std::string(JobStatusName(s)) + "' THEN 1 END)";
  }
  return out;
}

// The workflow's status from the same aggregate (DeriveWorkflowStatus).
inline std::string DerivedStatusExpression() {
  return "CASE WHEN count(CASE WHEN jobs.status = 'cancelled' THEN 1 END) > 0 THEN 'cancelled'"
         " WHEN count(CASE WHEN jobs.status IN ('deadletter', 'quarantined') THEN 1 END) > 0"
         " THEN 'failed'"
         " WHEN count(jobs.id) > 0 AND count(CASE WHEN jobs.status = 'completed' THEN 1 END)"
         " = count(jobs.id) THEN 'completed'"
         " WHEN count(CASE WHEN jobs.status IN ('processing', 'completed') THEN 1 END) > 0"
         " THEN 'running' ELSE 'pending' END";
}

}  // namespace redrive::store::workflow_status_sql
