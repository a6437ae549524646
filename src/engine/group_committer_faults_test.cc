// The GroupCommitter on a SQLite store whose disk fails (FaultVfs): when a
// batch's commit fails, every request of the batch is answered 503 and none
// is acknowledged — a read afterwards finds none of them, or (the pipelined
// store's failed WAL sync, after COMMIT made them visible) no read is
// answered any more — and after a failed fsync every later write is refused
// too (fail-stop).
#include <gtest/gtest.h>

#include <atomic>
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

using store::sqlite::testing::FaultFile;
using store::sqlite::testing::FaultOp;
using store::sqlite::testing::FaultVfs;

// A disk failure, injected once at the batch's commit.
struct Fault {
  const char* name;
  FaultOp op;
  FaultFile file;
  int rc;
  bool stops_writes;  // fail-stop: later writes are refused too
  store::SqliteSync sync = store::SqliteSync::kPipelined;
};

class GroupCommitterFaultsTest : public ::testing::TestWithParam<Fault> {
 protected:
  void SetUp() override {
    faults_.Clear();
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-gc-faults-" + std::to_string(::getpid()) + "-" + GetParam().name);
    std::filesystem::remove_all(dir_);
    store::SqliteOptions options;
    options.vfs = FaultVfs::kName;
    options.busy_timeout = std::chrono::milliseconds(1);
    options.sync = GetParam().sync;
    auto s = store::SqliteStore::Open((dir_ / "redrive.db").string(), options);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    ASSERT_TRUE(store_->Migrate().ok());
    committer_ = std::make_unique<GroupCommitter>(
        *store_, clock_, random_, 2048, [this](const TxEffects&, size_t) { ++commits_; }, nullptr);
    committer_->Start();
  }
  void TearDown() override {
    committer_.reset();
    store_.reset();
    faults_.Clear();
    std::filesystem::remove_all(dir_);
  }

  // Enqueues one job of "q", remembering its id; `before` runs first.
  WriteOp EnqueueOp(std::function<void()> before, std::promise<Status>& answer) {
    return {[this, before](store::WriteTx& tx, TxContext& ctx) -> Status {
              if (before) before();
              EnqueueParams p;
              p.queue_name = std::string("q");
              p.payload_json = std::string("{}");
              auto r = ops::Enqueue(tx, ctx, p);
              if (!r.ok()) return r.status();
              std::lock_guard<std::mutex> lock(mu_);
              ids_.push_back(r->id);
              if (faults_.injected() > 0) ran_after_fault_ = true;
              return Status::Ok();
            },
            [&answer](Status st) { answer.set_value(std::move(st)); }};
  }
  // What a read is answered with: WhenDurable's status, waited for.
  Status WaitDurable() {
    std::promise<Status> durable;
    committer_->WhenDurable([&](Status s) { durable.set_value(std::move(s)); });
    return durable.get_future().get();
  }
  long long JobsInStore() {
    auto tx = store_->BeginRead();
    EXPECT_TRUE(tx.ok());
    auto counts = (*tx)->CountJobs(std::string("q"));
    EXPECT_TRUE(counts.ok());
    return counts.ok() ? counts->pending : -1;
  }

  FaultVfs& faults_ = FaultVfs::Install();
  std::filesystem::path dir_;
  ManualClock clock_;
  SystemRandom random_{7};
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<GroupCommitter> committer_;
  std::atomic<int> commits_{0};
  std::mutex mu_;
  std::vector<std::string> ids_;
  bool ran_after_fault_ = false;
};

TEST_P(GroupCommitterFaultsTest, EveryRequestOfTheFailedBatchIsAnswered503AndNoneIsKept) {
  const Fault fault = GetParam();
  // A first op holds the committer inside its batch until the others are
  // queued, so those ten make up the next batch together.
  std::promise<void> gate_entered, gate_open;
  std::promise<Status> gate_answer;
  committer_->Submit({[&](store::WriteTx&, TxContext&) {
                        gate_entered.set_value();
                        gate_open.get_future().wait();
                        return Status::Ok();
                      },
                      [&](Status st) { gate_answer.set_value(std::move(st)); }});
  gate_entered.get_future().wait();
  constexpr int kRequests = 10;
  std::vector<std::promise<Status>> answers(kRequests);
  for (int i = 0; i < kRequests; ++i) {
    // The batch's first op arms the fault: it hits that batch's commit.
    std::function<void()> arm;
    if (i == 0) {
      arm = [&] {
        // With pipelined sync the gate's batch may still be syncing: the
        // fault is for this batch's.
        while (commits_ < 1) std::this_thread::yield();
        faults_.Inject(fault.op, fault.file, fault.rc, 1);
      };
    }
    committer_->Submit(EnqueueOp(arm, answers[i]));
  }
  gate_open.set_value();
  ASSERT_TRUE(gate_answer.get_future().get().ok());

  for (int i = 0; i < kRequests; ++i) {
    Status st = answers[i].get_future().get();
    EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << i << ": " << st.ToString();
  }
  EXPECT_EQ(faults_.injected(), 1);
  EXPECT_FALSE(ran_after_fault_) << "the ten requests were not one batch";
  ASSERT_EQ(ids_.size(), static_cast<size_t>(kRequests));
  EXPECT_EQ(commits_, 1) << "only the gate's batch committed";
  if (fault.op == FaultOp::kSync && fault.sync == store::SqliteSync::kPipelined) {
    // COMMIT had made the rows visible; their sync failed. What is on disk
    // is unknown, so a read is not answered either.
    EXPECT_EQ(WaitDurable().code(), ErrorCode::kUnavailable);
  } else {
    EXPECT_EQ(JobsInStore(), 0);
    auto tx = store_->BeginRead();
    ASSERT_TRUE(tx.ok());
    for (const std::string& id : ids_) {
      EXPECT_EQ((*tx)->GetJob(id).status().code(), ErrorCode::kNotFound) << id;
    }
    tx->reset();
    EXPECT_TRUE(WaitDurable().ok());
  }

  // The fault is spent. After a failed fsync the store stays stopped; after
  // any other failure the next write commits.
  std::promise<Status> next;
  committer_->Submit(EnqueueOp(nullptr, next));
  Status st = next.get_future().get();
  if (fault.stops_writes) {
    EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.ToString();
    EXPECT_NE(st.message().find("restart"), std::string::npos) << st.message();
    if (fault.sync == store::SqliteSync::kFull) {
      EXPECT_EQ(JobsInStore(), 0);
    }
    EXPECT_EQ(store_->Ping().code(), ErrorCode::kUnavailable);
  } else {
    EXPECT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(JobsInStore(), 1);
    EXPECT_TRUE(store_->Ping().ok());
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, GroupCommitterFaultsTest,
    ::testing::Values(Fault{"fsync_eio", FaultOp::kSync, FaultFile::kWal, SQLITE_IOERR_FSYNC, true},
                      Fault{"disk_full", FaultOp::kWrite, FaultFile::kWal, SQLITE_FULL, false},
                      Fault{"write_eio", FaultOp::kWrite, FaultFile::kWal, SQLITE_IOERR_WRITE,
                            false},
                      Fault{"fsync_eio_full", FaultOp::kSync, FaultFile::kWal, SQLITE_IOERR_FSYNC,
                            true, store::SqliteSync::kFull},
                      Fault{"disk_full_full", FaultOp::kWrite, FaultFile::kWal, SQLITE_FULL, false,
                            store::SqliteSync::kFull}),
    [](const auto& info) { return std::string(info.param.name); });

// The write lock held elsewhere (SQLITE_BUSY past the busy timeout): the
// batch cannot begin, its requests are answered 503 without running, and
// writes succeed again once the lock is free.
TEST(GroupCommitterBusyTest, BatchThatCannotTakeTheWriteLockIsAnswered503) {
  FaultVfs& faults = FaultVfs::Install();
  faults.Clear();
  const auto dir =
      std::filesystem::temp_directory_path() / ("redrive-gc-busy-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  store::SqliteOptions options;
  options.vfs = FaultVfs::kName;
  options.busy_timeout = std::chrono::milliseconds(1);
  auto store = store::SqliteStore::Open((dir / "redrive.db").string(), options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Migrate().ok());
  ManualClock clock;
  SystemRandom random{7};
  GroupCommitter committer(**store, clock, random, 2048, nullptr, nullptr);
  committer.Start();
  std::atomic<int> runs{0};
  auto enqueue = [&](store::WriteTx& tx, TxContext& ctx) -> Status {
    ++runs;
    EnqueueParams p;
    p.queue_name = std::string("q");
    p.payload_json = std::string("{}");
    return ops::Enqueue(tx, ctx, p).status();
  };

  faults.Inject(FaultOp::kWriteLock, FaultFile::kAny, SQLITE_BUSY);
  Status st = committer.RunAndWait(enqueue);
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable) << st.ToString();
  EXPECT_EQ(runs, 0);
  EXPECT_EQ((*store)->Ping().code(), ErrorCode::kUnavailable);

  faults.Clear();
  EXPECT_TRUE(committer.RunAndWait(enqueue).ok());
  EXPECT_TRUE((*store)->Ping().ok());
  committer.Stop();
  store->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace redrive::engine
