#include "store/sqlite/integrity_check.h"

#include <sqlite3.h>

#include <string>

#include "store/sqlite/sqlite_error.h"

namespace redrive::store::sqlite {
namespace {

// Steps of SQLite's virtual machine between two looks at the clock.
constexpr int kStepsPerProgressCall = 1000;

struct Budget {
  const Clock& clock;
  Instant deadline;
  bool spent = false;
};

int OnProgress(void* arg) {
  auto* budget = static_cast<Budget*>(arg);
  if (budget->clock.Now() >= budget->deadline) budget->spent = true;
  return budget->spent ? 1 : 0;  // non-zero interrupts the statement
}

// Corruption is a finding of the check, not a failure to run it.
bool IsCorruption(int rc) {
  rc &= 0xff;
  return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

// quick_check answers "ok", or lines of findings, some of which hold several
// (each on its own line) under a "*** in database main ***" heading.
void AddProblems(const std::string& text, IntegrityReport& report) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line != "ok" && line.rfind("*** in database", 0) != 0) {
      report.problems.push_back(std::move(line));
    }
    start = end + 1;
  }
}

}  // namespace

Result<IntegrityReport> QuickCheck(Connection& conn, const Clock& clock,
                                   std::chrono::milliseconds budget) {
  Budget b{clock, clock.Now() + std::chrono::duration_cast<Micros>(budget)};
  sqlite3_progress_handler(conn.db(), kStepsPerProgressCall, &OnProgress, &b);
  IntegrityReport report;
  Status failure;
  int rc = SQLITE_OK;
  {
    const std::string sql =
        "PRAGMA quick_check(" + std::to_string(IntegrityReport::kMaxProblems) + ")";
    Result<Statement> stmt = conn.Prepare(sql);
    if (!stmt.ok()) {
      failure = stmt.status();
      rc = sqlite3_extended_errcode(conn.db());
    } else {
      for (;;) {
        Result<bool> row = stmt->Step();
        if (!row.ok()) {
          failure = row.status();
          rc = sqlite3_extended_errcode(conn.db());
          break;
        }
        if (!*row) break;
        AddProblems(stmt->String(0), report);
      }
    }
  }
  sqlite3_progress_handler(conn.db(), 0, nullptr, nullptr);
  if (failure.ok()) return report;
  if (b.spent || (rc & 0xff) == SQLITE_INTERRUPT) {
    report.complete = false;
    return report;
  }
  if (IsCorruption(rc)) {
    report.problems.push_back(failure.message());
    return report;
  }
  return failure;
}

}  // namespace redrive::store::sqlite
