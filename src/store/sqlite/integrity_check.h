// The start-up integrity check of a SQLite file: PRAGMA quick_check (every
// b-tree page and the row/column structure; cheaper than integrity_check,
// which also compares every index with its table), within a time budget.
// A corrupt page otherwise goes unnoticed until a write touches it, and then
// every write of the server fails while it looks healthy.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "store/sqlite/connection.h"

namespace redrive::store {

struct IntegrityReport {
  // False when the budget ran out first: the check was cut short, and
  // `problems` holds only what it found until then.
  bool complete = true;
  // What SQLite found wrong, at most kMaxProblems lines; empty: nothing.
  std::vector<std::string> problems;

  static constexpr int kMaxProblems = 10;
  bool ok() const { return problems.empty(); }
};

namespace sqlite {

// Runs PRAGMA quick_check on `conn`. The budget is measured on `clock`
// (read every few thousand steps of the check, through SQLite's progress
// handler); once it is spent the check stops and the report says it is
// incomplete. SQLite before 3.43 reads the handler only between the check's
// steps, not inside its walk of one b-tree, so there the check may overrun
// the budget by one table's walk. Errors other than corruption (the file
// cannot be read) are returned as a Status.
Result<IntegrityReport> QuickCheck(Connection& conn, const Clock& clock,
                                   std::chrono::milliseconds budget);

}  // namespace sqlite
}  // namespace redrive::store
