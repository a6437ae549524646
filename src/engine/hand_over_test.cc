// The hand-over of both write executors: the jobs a request's op (a group of
// them, with the group committer) makes claimable are offered, before the
// commit, to the claims parked on their queue; the claims it wakes run in
// the same transaction, each in a savepoint, and only the new jobs they did
// not take are left for the wake-ups after the commit.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/random.h"
#include "engine/fault_store_test_util.h"
#include "engine/group_committer.h"
#include "engine/job_ops.h"
#include "engine/pooled_executor.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine {
namespace {

enum class Executor { kGroupCommitter, kPooled };

// The value of `f`, or nullopt if it is not set within seconds (a woken op
// that never ran fails the test instead of hanging it).
template <typename T>
std::optional<T> Within(std::future<T> f) {
  if (f.wait_for(std::chrono::seconds(10)) != std::future_status::ready) return std::nullopt;
  return f.get();
}

class HandOverTest : public ::testing::TestWithParam<Executor> {
 protected:
  // A commit as the `answered` sink saw it.
  struct Answered {
    std::map<std::string, long long> became_claimable;
    size_t ops;
  };

  void SetUp() override {
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    for (char& c : name) c = c == '/' ? '-' : c;
    dir_ = std::filesystem::temp_directory_path() /
           ("redrive-hand-over-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir_);
    auto s = store::SqliteStore::Open((dir_ / "redrive.db").string(), {});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    ASSERT_TRUE(store_->Migrate().ok());
    faults_ = std::make_unique<testing::FaultStore>(*store_, 2);
    auto answered = [this](const TxEffects& e, size_t ops) {
      std::lock_guard<std::mutex> lock(mu_);
      answered_.push_back({e.became_claimable, ops});
    };
    if (GetParam() == Executor::kGroupCommitter) {
      committer_ =
          std::make_unique<GroupCommitter>(*faults_, clock_, random_, 2048, nullptr, answered);
    } else {
      committer_ = std::make_unique<PooledExecutor>(
          *faults_, clock_, random_, 2,
          WriteExecutorOptions{.abort_backoff = std::chrono::microseconds(100)}, nullptr, answered);
    }
  }
  void TearDown() override {
    committer_.reset();
    faults_.reset();
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
              for (const Job& j : r->jobs[0]) result->push_back(j.id);
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
  std::unique_ptr<testing::FaultStore> faults_;
  std::unique_ptr<WriteExecutor> committer_;
  std::mutex mu_;
  std::vector<Answered> answered_;
};

TEST_P(HandOverTest, AWokenClaimTakesTheNewJobInTheTransactionThatMadeIt) {
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
  EXPECT_EQ(Within(claimed.get_future()), std::vector<std::string>{job});
  committer_->Stop();

  ASSERT_EQ(offered.size(), 1u);
  EXPECT_EQ(offered[0], (std::map<std::string, long long>{{"q", 1}}));
  // One commit carried both, and nobody is to be woken for the job after it.
  EXPECT_EQ(faults_->commits(), 1);
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

TEST_P(HandOverTest, ANewJobNoWokenClaimTookStillWakesAfterTheCommit) {
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
  EXPECT_EQ(Within(claimed.get_future()), std::vector<std::string>{});
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

TEST_P(HandOverTest, ADutysNewJobsAreNotHandedOver) {
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

TEST_P(HandOverTest, AWokenOpsOwnErrorIsItsAnswerAndUndoesOnlyItsOwnWrites) {
  // The woken op writes a job of "other", then refuses: its savepoint goes,
  // the enqueue that woke it commits.
  std::promise<Status> refused;
  int offers = 0;
  committer_->SetHandOver([&](const std::map<std::string, long long>&) {
    if (++offers > 1) return false;
    committer_->Submit({[](store::WriteTx& tx, TxContext& ctx) -> Status {
                          EnqueueParams p;
                          p.queue_name = std::string("other");
                          p.payload_json = std::string("{}");
                          REDRIVE_RETURN_IF_ERROR(ops::Enqueue(tx, ctx, p).status());
                          return Status::Conflict("refused after writing");
                        },
                        [&refused](Status st) { refused.set_value(st); }});
    return true;
  });
  committer_->Start();
  std::promise<std::string> id;
  committer_->Submit(EnqueueOp("q", id));
  const std::string job = id.get_future().get();
  const std::optional<Status> answer = Within(refused.get_future());
  committer_->Stop();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->code(), ErrorCode::kConflict);

  EXPECT_EQ(faults_->commits(), 1);
  auto tx = store_->BeginRead();
  ASSERT_TRUE(tx.ok());
  auto stored = (*tx)->GetJob(job);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->status, JobStatus::kPending);  // nobody claimed it: wake after the commit
  auto other = (*tx)->CountJobs(std::string("other"));
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->pending, 0);
  const std::vector<Answered> answered = AnsweredSoFar();
  ASSERT_EQ(answered.size(), 1u);
  EXPECT_EQ(answered[0].became_claimable, (std::map<std::string, long long>{{"q", 1}}));
}

INSTANTIATE_TEST_SUITE_P(Executors, HandOverTest,
                         ::testing::Values(Executor::kGroupCommitter, Executor::kPooled),
                         [](const ::testing::TestParamInfo<Executor>& info) {
                           return info.param == Executor::kPooled ? "pooled" : "group";
                         });

// The pooled executor runs the woken ops on the transaction of the op that
// woke them; when that transaction's commit is lost to a race they are
// queued to run again on their own, and each is answered once.
class PooledHandOverTest : public HandOverTest {};

TEST_P(PooledHandOverTest, WokenOpsOfACommitLostToARaceRunAgainOnTheirOwn) {
  faults_->SetPlan(testing::FailFirst(testing::FaultStore::Point::kCommit, 1,
                                      Status::Aborted("could not serialize access"),
                                      /*only_inserts=*/true));
  auto claim_runs = std::make_shared<std::atomic<int>>(0);
  std::promise<Status> claim_answer;
  std::atomic<int> claim_answers{0};
  int offers = 0;
  committer_->SetHandOver([&](const std::map<std::string, long long>&) {
    if (++offers > 1) return false;  // the enqueue's second try wakes nobody
    committer_->Submit({[claim_runs](store::WriteTx& tx, TxContext& ctx) -> Status {
                          ++*claim_runs;
                          const ops::Claimer claimer{"w", 1, std::chrono::seconds(30)};
                          return ops::ClaimFor(tx, ctx, "q", std::span(&claimer, 1)).status();
                        },
                        [&](Status st) {
                          if (++claim_answers == 1) claim_answer.set_value(st);
                        }});
    return true;
  });
  committer_->Start();
  std::promise<std::string> id;
  committer_->Submit(EnqueueOp("q", id));
  const std::string job = id.get_future().get();
  const std::optional<Status> answer = Within(claim_answer.get_future());
  committer_->Stop();
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->ok()) << answer->ToString();

  EXPECT_EQ(offers, 2);       // the enqueue ran twice, and was offered twice
  EXPECT_EQ(*claim_runs, 2);  // in the lost transaction, then on its own
  EXPECT_EQ(claim_answers, 1);
  auto tx = store_->BeginRead();
  ASSERT_TRUE(tx.ok());
  EXPECT_TRUE((*tx)->GetJob(job).ok());  // the answered enqueue is durable
}

INSTANTIATE_TEST_SUITE_P(Executors, PooledHandOverTest, ::testing::Values(Executor::kPooled),
                         [](const ::testing::TestParamInfo<Executor>&) { return "pooled"; });

}  // namespace
}  // namespace redrive::engine
