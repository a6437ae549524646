// The checkpointer under steady writes: the WAL restarts from its start once
// a background checkpoint has copied it, instead of growing to the hard limit
// with a checkpoint started after every commit.
#include "store/sqlite/checkpointer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "store/sqlite/sqlite_store.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store {
namespace {

using sqlite::Checkpointer;

const Instant kT0 = InstantFromMicros(1'800'000'000'000'000);

TEST(CheckpointerTest, UnderSteadyCommitsTheWalRestartsLongBeforeTheHardLimit) {
  sqlite::TempDirForTest dir;
  const std::string path = dir.File("redrive.db");
  auto opened = SqliteStore::Open(path, {});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<SqliteStore> store = std::move(opened).value();
  ASSERT_TRUE(store->Migrate().ok());

  // Small commits, one after another as a busy group committer makes them
  // (no fsync each: the pipelined store syncs apart), writing about three
  // times the hard limit's frames in all.
  constexpr long long kPageBytes = 4096;
  const std::string payload = "\"" + std::string(6000, 'x') + "\"";
  long long wal_bytes_max = 0;
  for (int i = 0; i < 8000; ++i) {
    auto tx = store->BeginWrite();
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    Job job;
    job.id = "job-" + std::to_string(i);
    job.queue_name = "q";
    job.payload = payload;
    job.created_at = job.updated_at = job.scheduled_at = kT0;
    HistoryEntry created{"h-" + job.id, job.id, "created", std::nullopt, "{}", kT0};
    ASSERT_TRUE((*tx)->InsertJob(job, created).ok());
    ASSERT_TRUE((*tx)->CommitWithoutSync().ok());
    wal_bytes_max = std::max<long long>(
        wal_bytes_max, static_cast<long long>(std::filesystem::file_size(path + "-wal")));
  }
  ASSERT_TRUE(store->SyncCommits().ok());
  // About eight frames a commit (the payload's overflow pages, the row, its
  // indexes, the history), 60,000 or more in all. Without the catch-up the
  // WAL grew to the hard limit (20,000 frames, 83 MB) and restarted only
  // when the writer checkpointed there; with it, the WAL file (which keeps
  // the size of its largest cycle) peaked at 7,600 to 10,600 frames in
  // twelve runs of this loop, which commits far faster than a server does
  // (the background copy trails it; 4,080 frames under the W2 benchmark).
  EXPECT_LT(wal_bytes_max, Checkpointer::kWriterTakesOverPages * 3 / 4 * (kPageBytes + 24));
  EXPECT_GE(wal_bytes_max, Checkpointer::kCheckpointPages * kPageBytes);
}

}  // namespace
}  // namespace redrive::store
