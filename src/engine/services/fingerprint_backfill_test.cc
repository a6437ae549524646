// The fingerprint backfill duty on a real store, driven with a manual clock.
#include "engine/services/fingerprint_backfill.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "core/error_fingerprint.h"
#include "core/random.h"
#include "core/transition.h"
#include "engine/write_executor.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine {
namespace {

using std::chrono::seconds;

class FingerprintBackfillTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-backfill-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    auto s = store::SqliteStore::Open((dir_ / "redrive.db").string());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    ASSERT_TRUE(store_->Migrate().ok());
    executor_ = MakeWriteExecutor(*store_, clock_, random_, {}, nullptr, nullptr);
    executor_->Start();
  }
  void TearDown() override {
    executor_->Stop();
    executor_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // A dead job as a server before fingerprints stored it: no fingerprint.
  void InsertOldDeadJob(const std::string& id, const std::string& error) {
    Job j;
    j.id = id;
    j.queue_name = "q";
    j.status = JobStatus::kDeadletter;
    j.dead_reason = DeadReason::kMaxRetriesExceeded;
    j.last_error = error;
    j.created_at = j.updated_at = j.scheduled_at = clock_.Now();
    j.deadlettered_at = j.completed_at = clock_.Now();
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    HistoryEntry created{"h-" + id, id, "created", std::nullopt, "{}", clock_.Now(), std::nullopt};
    ASSERT_TRUE((*tx)->InsertJob(j, created).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }

  std::filesystem::path dir_;
  ManualClock clock_{InstantFromMicros(1'800'000'000'000'000)};
  FixedRandom random_{0};
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<WriteExecutor> executor_;
};

TEST_F(FingerprintBackfillTest, FillsInOldDeadJobsABatchAtATimeThenWaits) {
  InsertOldDeadJob("a", "upstream 504 after 20s");
  InsertOldDeadJob("b", "upstream 504 after 30s");
  InsertOldDeadJob("c", "connection refused");
  ErrorFingerprintBackfill backfill(*executor_, /*batch=*/2, seconds(60));
  const Instant now = clock_.Now();
  ServiceRun first = backfill.RunOnce(now);
  EXPECT_EQ(first.changed, 2);
  EXPECT_TRUE(first.more);  // a full batch: run again at once
  ServiceRun second = backfill.RunOnce(now);
  EXPECT_EQ(second.changed, 1);
  EXPECT_FALSE(second.more);
  EXPECT_EQ(second.next_run, now + seconds(60));
  EXPECT_EQ(backfill.RunOnce(now).changed, 0);

  auto tx = store_->BeginRead();
  ASSERT_TRUE(tx.ok());
  auto groups = (*tx)->SummarizeDeadLetters({});
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  ASSERT_EQ(groups->size(), 2u);
  EXPECT_EQ((*groups)[0].count, 2);
  EXPECT_EQ((*groups)[0].fingerprint, ErrorFingerprint("upstream 504 after 45s"));
  EXPECT_EQ((*groups)[1].fingerprint, ErrorFingerprint("connection refused"));
}

}  // namespace
}  // namespace redrive::engine
