#include "store/sqlite/query_util.h"

#include <variant>

#include "store/sqlite/row_mapping.h"

namespace redrive::store::sqlite {

Result<std::vector<Job>> CollectJobs(Statement& stmt) {
  std::vector<Job> jobs;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return jobs;
    REDRIVE_ASSIGN_OR_RETURN(Job job, ReadJob(stmt));
    jobs.push_back(std::move(job));
  }
}

void BindParams(Statement& stmt, const sql::BuiltQuery& q) {
  int index = 1;
  for (const auto& param : q.params) {
    std::visit([&](const auto& value) { stmt.Bind(index, value); }, param);
    ++index;
  }
}

Result<std::vector<Job>> RunJobQuery(Connection& conn, const sql::BuiltQuery& q) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(q.sql));
  BindParams(stmt, q);
  return CollectJobs(stmt);
}

}  // namespace redrive::store::sqlite
