// Worker pruning on the manual clock: a worker silent for exactly the prune
// age stays, a second later it is gone unless it holds a lease; zero turns
// pruning off.
#include <gtest/gtest.h>

#include "engine/engine_test_util.h"

namespace redrive::engine::testing {
namespace {

using std::chrono::hours;
using std::chrono::seconds;

class WorkerPruningTest : public EngineTest {
 protected:
  std::string Register() {
    RegisterWorkerParams reg;
    reg.queue_name = "q";
    reg.hostname = "h";
    auto w = Call<WorkerInfo>(&Engine::RegisterWorker, reg);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? w->id : "";
  }
  bool Exists(const std::string& id) {
    return Call<WorkerInfo>(&Engine::GetWorker, std::string(id)).ok();
  }
};

TEST_F(WorkerPruningTest, DeletesWorkersSilentPastTheAgeButNotLeaseHolders) {
  EngineOptions options;
  options.prune_workers_after = seconds(600);
  StartEngine(options);
  const std::string idle = Register();
  const std::string busy = Register();
  EnqueueParams long_job;
  long_job.timeout_seconds = 3600;  // the lease is not capped before the checks below
  Enqueue("q", long_job);
  ASSERT_EQ(Claim("q", 1, 3600, busy).size(), 1u);

  clock_.Advance(seconds(600));  // silent exactly the prune age: kept
  engine_->RunServicesOnce();
  EXPECT_TRUE(Exists(idle));
  clock_.Advance(seconds(1));
  engine_->RunServicesOnce();
  EXPECT_FALSE(Exists(idle));
  EXPECT_TRUE(Exists(busy));  // holds a lease
}

TEST_F(WorkerPruningTest, DefaultAgeIsSevenDaysAndAHeartbeatRestartsIt) {
  const std::string quiet = Register();
  const std::string beating = Register();
  clock_.Advance(hours(24 * 7 - 1));
  WorkerHeartbeatParams hb;
  hb.worker_id = beating;
  ASSERT_TRUE(Call<WorkerInfo>(&Engine::WorkerHeartbeat, hb).ok());
  clock_.Advance(hours(1));
  engine_->RunServicesOnce();
  EXPECT_TRUE(Exists(quiet));  // exactly seven days
  clock_.Advance(seconds(1));
  engine_->RunServicesOnce();
  EXPECT_FALSE(Exists(quiet));
  EXPECT_TRUE(Exists(beating));
}

TEST_F(WorkerPruningTest, ZeroNeverPrunes) {
  EngineOptions options;
  options.prune_workers_after = seconds::zero();
  StartEngine(options);
  const std::string id = Register();
  clock_.Advance(hours(24 * 365));
  engine_->RunServicesOnce();
  EXPECT_TRUE(Exists(id));
}

}  // namespace
}  // namespace redrive::engine::testing
