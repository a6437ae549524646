// The statement texts of job_sql.h outlive the process's static destruction:
// an engine's committer may still write while exit() runs (the fuzz harness
// stops its engine in an atexit handler registered before the first UPDATE
// text was cached, so that cache was destroyed first and the committer read
// freed memory: heap-use-after-free under ASan).
#include "store/sqlite/job_sql.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

namespace redrive::store::sqlite::sql {
namespace {

// Every single updated column, one after another: new keys and found ones.
void BuildUpdateTextsForever(std::atomic<bool>& started) {
  for (int round = 0;; ++round) {
    for (int i = 0; i < kJobColumnCount; ++i) {
      if (!(kUpdatedColumns & ColumnBit(i))) continue;
      const JobColumnSet changed =
          ColumnBit(i) | (round % 2 ? ColumnBit((i + 1) % kJobColumnCount) : 0);
      if (UpdateJobSql(changed & kUpdatedColumns).empty()) std::abort();
      started = true;
    }
  }
}

TEST(JobSqlDeathTest, UpdateTextsStayValidWhileExitDestroysStatics) {
  EXPECT_EXIT(
      {
        std::atomic<bool> started{false};
        std::thread writer([&] { BuildUpdateTextsForever(started); });
        writer.detach();
        while (!started) std::this_thread::yield();
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(JobSqlTest, AnUpdateSetsExactlyTheChangedColumnsAndUpdatedAt) {
  const int status = JobColumnIndex("status");
  const std::string sql(UpdateJobSql(ColumnBit(status)));
  EXPECT_NE(sql.find("status = "), std::string::npos) << sql;
  EXPECT_NE(sql.find("updated_at = "), std::string::npos) << sql;
  EXPECT_EQ(sql.find("priority = "), std::string::npos) << sql;
  // The same text, not a rebuilt one.
  EXPECT_EQ(UpdateJobSql(ColumnBit(status)).data(), UpdateJobSql(ColumnBit(status)).data());
}

}  // namespace
}  // namespace redrive::store::sqlite::sql
