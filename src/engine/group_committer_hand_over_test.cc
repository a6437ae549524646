// The group committer's hand-over: the jobs a group of requests makes
// claimable are offered, before the commit, to the claims parked on their
// queue; the claims it wakes run in the same transaction, and only the new
// jobs they did not take are left for the wake-ups after the commit.
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/random.h"
#include "engine/group_committer.h"
#include "engine/job_ops.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine {
namespace {

class GroupCommitterHandOverTest : public ::testing::Test {
 protected:
  // A commit as the `answered` sink saw it.
  struct Answered {
    std::map<std::string, long long> became_claimable;
    size_t ops;
  };

  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-gc-hand-over-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    auto s = store::SqliteStore::Open((dir_ / "redrive.db").string(), {});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    ASSERT_TRUE(store_->Migrate().ok());
    committer_ = std::make_unique<GroupCommitter>(*store_, clock_, random_, 2048, nullptr,
                                                  [this](const TxEffects& e, size_t ops) {
                                                    std::lock_guard<std::mutex> lock(mu_);
                                                    answered_.push_back({e.became_claimable, ops});
                                                  });
  }
  void TearDown() override {
    committer_.reset();
    store_.reset();
    std::filesystem::remove_all(dir_);
  }

  // Enqueues one job of `queue`; its id goes to `id`.
  WriteOp EnqueueOp(const std::string& queue, std::promise<std::string>& id,
                    bool background = false) {
    auto result = std::make_shared<std::string>();
    return {[queue, result](store::WriteTx& tx, TxContext& ctx) -> Status {
              EnqueueParams p;
              p.queue_name = queue;
              p.payload_json = std::string("{}");
              auto r = ops::Enqueue(tx, ctx, p);
              if (!r.ok()) return r.status();
              *result = r->id;
              return Status::Ok();
            },
            [result, &id](Status st) {
              EXPECT_TRUE(st.ok()) << st.ToString();
              id.set_value(*result);
            },
            background};
  }
  // Claims one job of `queue` for worker "w"; the ids it took go to `ids`.
  WriteOp ClaimOp(const std::string& queue, std::promise<std::vector<std::string>>& ids) {
    auto result = std::make_shared<std::vector<std::string>>();
    return {[queue, result](store::WriteTx& tx, TxContext& ctx) -> Status {
              const ops::Claimer claimer{"w", 1, std::chrono::seconds(30)};
              auto r = ops::ClaimFor(tx, ctx, queue, std::span(&claimer, 1));
              if (!r.ok()) return r.status();
              result->clear();
              for (const Job& j : (*r)[0]) result->push_back(j.id);
              return Status::Ok();
            },
            [result, &ids](Status st) {
              EXPECT_TRUE(st.ok()) << st.ToString();
              ids.set_value(*result);
            }};
  }
  std::vector<Answered> AnsweredSoFar() {
    std::lock_guard<std::mutex> lock(mu_);
    return answered_;
  }

  std::filesystem::path dir_;
  ManualClock clock_;
  SystemRandom random_{7};
  std::unique_ptr<store::SqliteStore> store_;
  std::unique_ptr<GroupCommitter> committer_;
  std::mutex mu_;
  std::vector<Answered> answered_;
};

TEST_F(GroupCommitterHandOverTest, AWokenClaimTakesTheNewJobInTheTransactionThatMadeIt) {
  std::promise<std::vector<std::string>> claimed;
  std::vector<std::map<std::string, long long>> offered;
  committer_->SetHandOver([&](const std::map<std::string, long long>& claimable) {
    offered.push_back(claimable);
    if (offered.size() == 1) committer_->Submit(ClaimOp("q", claimed));  // a parked claim wakes
    return offered.size() == 1;
  });
  committer_->Start();
  std::promise<std::string> id;
  committer_->Submit(EnqueueOp("q", id));
  const std::string job = id.get_future().get();
  EXPECT_EQ(claimed.get_future().get(), std::vector<std::string>{job});
  committer_->Stop();

  ASSERT_EQ(offered.size(), 1u);
  EXPECT_EQ(offered[0], (std::map<std::string, long long>{{"q", 1}}));
  // One commit carried both, and nobody is to be woken for the job after it.
  const std::vector<Answered> answered = AnsweredSoFar();
  ASSERT_EQ(answered.size(), 1u);
  EXPECT_EQ(answered[0].ops, 2u);
  EXPECT_TRUE(answered[0].became_claimable.empty());
  auto tx = store_->BeginRead();
  ASSERT_TRUE(tx.ok());
  auto stored = (*tx)->GetJob(job);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->status, JobStatus::kProcessing);
}

TEST_F(GroupCommitterHandOverTest, ANewJobNoWokenClaimTookStillWakesAfterTheCommit) {
  // The woken claim is of another queue (it takes nothing); then one that
  // woke nobody.
  std::promise<std::vector<std::string>> claimed;
  int offers = 0;
  committer_->SetHandOver([&](const std::map<std::string, long long>&) {
    if (++offers == 1) committer_->Submit(ClaimOp("other", claimed));
    return offers == 1;
  });
  committer_->Start();
  std::promise<std::string> first;
  committer_->Submit(EnqueueOp("q", first));
  first.get_future().get();
  EXPECT_TRUE(claimed.get_future().get().empty());
  std::promise<std::string> second;
  committer_->Submit(EnqueueOp("q", second));
  second.get_future().get();
  committer_->Stop();

  const std::vector<Answered> answered = AnsweredSoFar();
  ASSERT_EQ(answered.size(), 2u);
  EXPECT_EQ(answered[0].ops, 2u);
  EXPECT_EQ(answered[0].became_claimable, (std::map<std::string, long long>{{"q", 1}}));
  EXPECT_EQ(answered[1].ops, 1u);
  EXPECT_EQ(answered[1].became_claimable, (std::map<std::string, long long>{{"q", 1}}));
}

TEST_F(GroupCommitterHandOverTest, ADutysNewJobsAreNotHandedOver) {
  int offers = 0;
  committer_->SetHandOver([&](const std::map<std::string, long long>&) {
    ++offers;
    return false;
  });
  committer_->Start();
  std::promise<std::string> id;
  committer_->Submit(EnqueueOp("q", id, /*background=*/true));
  id.get_future().get();
  committer_->Stop();

  EXPECT_EQ(offers, 0);
  const std::vector<Answered> answered = AnsweredSoFar();
  ASSERT_EQ(answered.size(), 1u);
  EXPECT_EQ(answered[0].became_claimable, (std::map<std::string, long long>{{"q", 1}}));
}

}  // namespace
}  // namespace redrive::engine
