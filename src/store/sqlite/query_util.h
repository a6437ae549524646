// Small helpers shared by the read and write transactions: run a query and
// collect its rows.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/status.h"
#include "store/sqlite/connection.h"
#include "store/sqlite/job_sql.h"
#include "store/sqlite/statement.h"

namespace redrive::store::sqlite {

// Steps `stmt` to the end, reading a T from each row with `read(stmt)`.
template <typename T, typename ReadFn>
Result<std::vector<T>> CollectRows(Statement& stmt, ReadFn read) {
  std::vector<T> out;
  while (true) {
    REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) return out;
    out.push_back(read(stmt));
  }
}

// Steps `stmt` to the end, reading a Job (REDRIVE_JOB_COLUMNS) from each row.
Result<std::vector<Job>> CollectJobs(Statement& stmt);

// Binds q's parameters to `stmt`, in order (?1, ?2, ...).
void BindParams(Statement& stmt, const sql::BuiltQuery& q);

// Prepares `q.sql` (cached by its text), binds its parameters and collects jobs.
Result<std::vector<Job>> RunJobQuery(Connection& conn, const sql::BuiltQuery& q);

// Runs a query whose first row's first column is an optional time (no row
// or NULL: nullopt). Parameters are bound by `bind(stmt)`.
template <typename BindFn>
Result<std::optional<Instant>> QueryOptTime(Connection& conn, std::string_view query, BindFn bind) {
  REDRIVE_ASSIGN_OR_RETURN(Statement stmt, conn.Prepare(query));
  bind(stmt);
  REDRIVE_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return std::optional<Instant>();
  return stmt.OptTime(0);
}

}  // namespace redrive::store::sqlite
