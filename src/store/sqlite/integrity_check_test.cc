// The start-up integrity check: a clean file passes, a damaged page is
// found, and the time budget (on an injected clock) cuts the check short.
#include "store/sqlite/integrity_check.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store {
namespace {

const Instant kT0 = InstantFromMicros(1'800'000'000'000'000);

// A clock that moves `step` forward every time it is read: the check sees
// its budget spent at its first look, without anyone waiting.
class SteppingClock final : public Clock {
 public:
  explicit SteppingClock(Micros step) : step_(step) {}
  Instant Now() const override { return kT0 + step_ * reads_.fetch_add(1); }
  int reads() const { return reads_.load(); }

 private:
  const Micros step_;
  mutable std::atomic<int> reads_{0};
};

class IntegrityCheckTest : public ::testing::Test {
 protected:
  // A migrated file holding `jobs` jobs with 2 KB payloads, closed.
  void MakeDatabase(int jobs) {
    auto store = SqliteStore::Open(path_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    ASSERT_TRUE((*store)->Migrate().ok());
    auto tx = (*store)->BeginWrite();
    ASSERT_TRUE(tx.ok());
    for (int i = 0; i < jobs; ++i) {
      Job job;
      job.id = "job-" + std::to_string(i);
      job.queue_name = "q";
      job.payload = "\"" + std::string(2000, 'x') + "\"";
      job.created_at = job.updated_at = job.scheduled_at = kT0;
      HistoryEntry created{"h-" + job.id, job.id, "created", std::nullopt, "{}", kT0};
      ASSERT_TRUE((*tx)->InsertJob(job, created).ok());
    }
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  Result<IntegrityReport> Check(const Clock& clock, std::chrono::milliseconds budget) {
    auto store = SqliteStore::Open(path_);
    if (!store.ok()) return store.status();
    return (*store)->CheckIntegrity(clock, budget);
  }

  sqlite::TempDirForTest dir_;
  const std::string path_ = dir_.File("redrive.db");
};

// Overwrites page `page` (1-based) of the file with garbage.
void DamagePage(const std::string& path, int64_t page, int page_size = 4096) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.is_open());
  f.seekp((page - 1) * page_size);
  const std::string garbage(page_size, '\xA5');
  f.write(garbage.data(), garbage.size());
}

TEST_F(IntegrityCheckTest, CleanFilePasses) {
  MakeDatabase(200);
  SystemClock clock;
  auto report = Check(clock, std::chrono::seconds(60));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->complete);
  EXPECT_TRUE(report->ok()) << report->problems.front();
}

TEST_F(IntegrityCheckTest, DamagedPageIsFound) {
  MakeDatabase(200);
  const int64_t pages = static_cast<int64_t>(std::filesystem::file_size(path_)) / 4096;
  ASSERT_GT(pages, 100);
  DamagePage(path_, pages / 2);
  SystemClock clock;
  auto report = Check(clock, std::chrono::seconds(60));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->ok());
  EXPECT_LE(report->problems.size(), static_cast<size_t>(IntegrityReport::kMaxProblems));
}

TEST_F(IntegrityCheckTest, SpentBudgetCutsTheCheckShort) {
  MakeDatabase(200);
  SteppingClock clock(std::chrono::hours(1));
  auto report = Check(clock, std::chrono::seconds(1));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->complete);
  EXPECT_TRUE(report->ok());
  EXPECT_GE(clock.reads(), 2) << "the check never looked at the clock";
}

TEST_F(IntegrityCheckTest, BudgetNotSpentLetsTheCheckFinish) {
  MakeDatabase(200);
  SteppingClock clock(std::chrono::microseconds(1));
  auto report = Check(clock, std::chrono::hours(1));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->complete);
  EXPECT_GE(clock.reads(), 2) << "the check never looked at the clock";
}

}  // namespace
}  // namespace redrive::store
