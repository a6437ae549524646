// The GroupCommitter on a pipelined SQLite store (the WAL synced by a thread
// of its own while the next batch runs) loses no answered request to a power
// cut. FaultVfs tracks every write no fsync covers yet; at moments taken
// while eight producers keep enqueueing, it copies the files as a power cut
// would leave them (every unsynced write undone), and recovery of each copy
// must find every job whose enqueue had been answered before the copy.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/random.h"
#include "engine/group_committer.h"
#include "engine/job_ops.h"
#include "store/sqlite/fault_vfs_test_util.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine {
namespace {

using store::sqlite::testing::FaultVfs;

TEST(GroupCommitterPowerLossTest, EveryAnsweredEnqueueSurvivesLosingTheUnsyncedWrites) {
  FaultVfs& vfs = FaultVfs::Install();
  vfs.Clear();
  const auto dir = std::filesystem::temp_directory_path() /
                   ("redrive-gc-power-loss-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string db = (dir / "redrive.db").string();
  store::SqliteOptions options;
  options.vfs = FaultVfs::kName;
  options.sync = store::SqliteSync::kPipelined;
  auto store = store::SqliteStore::Open(db, options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Migrate().ok());
  ASSERT_TRUE((*store)->traits().pipelined_sync);
  vfs.TrackUnsyncedWrites(true);

  ManualClock clock;
  SystemRandom random{11};
  GroupCommitter committer(**store, clock, random, 2048, nullptr, nullptr);
  committer.Start();

  std::mutex mu;
  std::condition_variable answered_cv;
  std::vector<std::string> answered;  // ids whose enqueue was answered OK
  std::atomic<bool> stop{false};
  std::vector<std::thread> producers;
  for (int t = 0; t < 8; ++t) {
    producers.emplace_back([&] {
      while (!stop) {
        auto id = std::make_shared<std::string>();
        std::promise<Status> done;
        committer.Submit({[id](store::WriteTx& tx, TxContext& ctx) -> Status {
                            EnqueueParams p;
                            p.queue_name = std::string("q");
                            p.payload_json = std::string(R"({"n":1})");
                            auto r = ops::Enqueue(tx, ctx, p);
                            if (!r.ok()) return r.status();
                            *id = r->id;
                            return Status::Ok();
                          },
                          [&done](Status st) { done.set_value(std::move(st)); }});
        Status st = done.get_future().get();
        if (!st.ok()) continue;
        std::lock_guard<std::mutex> lock(mu);
        answered.push_back(*id);
        answered_cv.notify_all();
      }
    });
  }

  // Power cuts at 12 moments under load, every 150 answers; then, should
  // none of them have fallen while a write was unsynced (a slow, loaded
  // machine whose syncer keeps up), one every 20 answers until one does, at
  // most 100 more.
  struct Cut {
    std::string image;
    std::vector<std::string> answered_before;
    long undone = 0;
  };
  std::vector<Cut> cuts;
  bool lost_writes = false;
  size_t want = 0;
  for (int i = 0; i < 12 || (!lost_writes && i < 112); ++i) {
    Cut cut;
    want += i < 12 ? 150 : 20;
    {
      std::unique_lock<std::mutex> lock(mu);
      ASSERT_TRUE(answered_cv.wait_for(lock, std::chrono::seconds(30),
                                       [&] { return answered.size() >= want; }))
          << "the producers stalled at " << answered.size();
      cut.answered_before = answered;
    }
    cut.image = (dir / ("cut-" + std::to_string(i) + ".db")).string();
    cut.undone = vfs.CrashImage(db, cut.image);
    ASSERT_GE(cut.undone, 0) << "copying " << db;
    lost_writes = lost_writes || cut.undone > 0;
    cuts.push_back(std::move(cut));
  }
  stop = true;
  for (auto& t : producers) t.join();
  committer.Stop();
  vfs.TrackUnsyncedWrites(false);

  long cuts_that_lost_writes = 0;
  for (const Cut& cut : cuts) {
    if (cut.undone > 0) ++cuts_that_lost_writes;
    store::SqliteOptions plain;  // the default VFS: recovery from the image
    auto recovered = store::SqliteStore::Open(cut.image, plain);
    ASSERT_TRUE(recovered.ok()) << cut.image << ": " << recovered.status().ToString();
    auto tx = (*recovered)->BeginRead();
    ASSERT_TRUE(tx.ok());
    size_t missing = 0;
    for (const std::string& id : cut.answered_before) {
      if (!(*tx)->GetJob(id).ok()) ++missing;
    }
    EXPECT_EQ(missing, 0u) << cut.image << " (" << cut.undone
                           << " unsynced writes undone) lost answered jobs";
  }
  // Otherwise no cut fell where pipelining could lose anything, and the
  // test proved nothing.
  EXPECT_GT(cuts_that_lost_writes, 0);
  store->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace redrive::engine
