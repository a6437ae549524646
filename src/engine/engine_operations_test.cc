// Bulk operations with the manual clock: an operation over 1,200 dead jobs
// runs in batches of at most 500, at its rate, survives a restart without
// handling a job twice, stops when cancelled, and runs once with two engines
// on one SQLite file.
#include <set>

#include "engine/engine_test_util.h"
#include "engine/services/operation_runner.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::engine::testing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr char kOperationSource[] = R"("source":"operation")";

class EngineOperationsTest : public EngineTest {
 protected:
  // `n` dead jobs of `queue` (enqueued with no retries, claimed and failed
  // in batches): their ids.
  std::vector<std::string> EnqueueDeadMany(const std::string& queue, int n,
                                           const std::string& error = "upstream 504") {
    std::vector<std::string> ids;
    for (int start = 0; start < n; start += 1000) {
      BulkEnqueueParams bulk;
      for (int i = start; i < std::min(n, start + 1000); ++i) {
        EnqueueParams p;
        p.queue_name = queue;
        p.payload_json = R"({"i":)" + std::to_string(i) + "}";
        p.max_retries = 0;
        bulk.jobs.push_back(p);
      }
      auto r = Call<std::vector<BulkItemResult>>(&Engine::EnqueueBulk, std::move(bulk));
      EXPECT_TRUE(r.ok());
    }
    std::vector<Job> claimed = Claim(queue, n);
    EXPECT_EQ(static_cast<int>(claimed.size()), n);
    std::vector<Ack> acks;
    for (const Job& j : claimed) {
      acks.push_back(Ack{j.id, *j.lease_id, std::nullopt, error});
      ids.push_back(j.id);
    }
    auto r = Call<std::vector<AckItemResult>>(&Engine::AckBatch, std::string("w1"), std::move(acks),
                                              QueueScope{});
    EXPECT_TRUE(r.ok());
    return ids;
  }

  Operation Create(CreateOperationParams p) {
    auto r = Call<CreateOperationResult>(&Engine::CreateOperation, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->operation : Operation{};
  }
  static CreateOperationParams RetryQueue(const std::string& queue) {
    CreateOperationParams p;
    p.action = OperationAction::kRetry;
    p.filter.queue_name = queue;
    p.selector_json = R"({"queue_name":")" + queue + R"("})";
    p.created_by = "oncall";
    return p;
  }
  Operation GetOp(const std::string& id) {
    auto r = Call<Operation>(&Engine::GetOperation, std::string(id));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Operation{};
  }
  // Runs the services at the clock's time (the loop may have run the batch
  // due then already: either way it ran once).
  void Pass() { engine_->RunServicesOnce(); }
  // How many times the operation redrove each job (history entries).
  std::map<std::string, int> RedrivesByJob(const std::vector<std::string>& ids) {
    std::map<std::string, int> out;
    auto tx = store_->BeginRead();
    for (const std::string& id : ids) {
      auto h = (*tx)->GetHistory(id);
      EXPECT_TRUE(h.ok());
      for (const HistoryEntry& e : *h) {
        if (e.details_json.find(kOperationSource) != std::string::npos) ++out[id];
      }
    }
    return out;
  }
  long long CountStatus(const std::string& queue, JobStatus st) {
    auto counts = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>(queue));
    EXPECT_TRUE(counts.ok());
    return counts.ok() ? counts->of(st) : -1;
  }
};

TEST_F(EngineOperationsTest, ADryRunCountsAndSamplesAndCreatesNothing) {
  EnqueueDeadMany("payments", 30);
  CreateOperationParams p = RetryQueue("payments");
  p.dry_run = true;
  auto r = Call<CreateOperationResult>(&Engine::CreateOperation, std::move(p));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->dry_run);
  EXPECT_EQ(r->matched, 30);
  EXPECT_EQ(r->sample.size(), static_cast<size_t>(kOperationSampleSize));
  auto listed = Call<std::vector<Operation>>(&Engine::ListOperations, 10, 0);
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());
  EXPECT_EQ(CountStatus("payments", JobStatus::kDeadletter), 30);
}

TEST_F(EngineOperationsTest, RunsOverManyJobsInBatchesAtItsRateAcrossARestart) {
  EngineOptions options;
  options.operation_batch = kMaxOperationBatch;
  options.operation_yield_share = 100;  // batches of the rate's size, whatever the requests
  StartEngine(options);
  std::vector<std::string> ids = EnqueueDeadMany("payments", 1200);
  CreateOperationParams p = RetryQueue("payments");
  p.rate_per_second = 500;  // one full batch (500) a second
  p.budget = RetryBudget{RetryBudget::Kind::kExtend, 2};
  const Operation created = Create(p);
  EXPECT_EQ(created.state, OperationState::kQueued);
  EXPECT_EQ(created.matched, 1200);

  Pass();
  Operation op = GetOp(created.id);
  EXPECT_EQ(op.state, OperationState::kRunning);
  EXPECT_EQ(op.matched, 1200);
  EXPECT_EQ(op.done, 500);  // one batch: the next is due a second later
  EXPECT_EQ(op.next_batch_at, clock_.Now() + seconds(1));
  EXPECT_EQ(EstimatedFinish(op, clock_.Now()), clock_.Now() + milliseconds(1400));
  clock_.Advance(milliseconds(999));
  Pass();
  EXPECT_EQ(GetOp(created.id).done, 500);  // the rate holds

  // Jobs of the first batch die again meanwhile: the cursor has passed them,
  // so the operation never redrives them a second time.
  std::vector<Job> again = Claim("payments", 10);
  ASSERT_EQ(again.size(), 10u);
  std::vector<Ack> fails;
  for (const Job& j : again) fails.push_back(Ack{j.id, *j.lease_id, std::nullopt, "boom", true});
  ASSERT_TRUE(Call<std::vector<AckItemResult>>(&Engine::AckBatch, std::string("w1"),
                                               std::move(fails), QueueScope{})
                  .ok());
  EXPECT_EQ(CountStatus("payments", JobStatus::kDeadletter), 710);

  // A restart in the middle: the new engine resumes after the cursor.
  StartEngine(options);
  clock_.Advance(milliseconds(1));
  Pass();
  EXPECT_EQ(GetOp(created.id).done, 1000);
  clock_.Advance(seconds(1));
  Pass();
  op = GetOp(created.id);
  EXPECT_EQ(op.state, OperationState::kCompleted);
  EXPECT_EQ(op.done, 1200);
  EXPECT_EQ(op.failed, 0);
  EXPECT_EQ(op.finished_at, clock_.Now());
  EXPECT_FALSE(EstimatedFinish(op, clock_.Now()).has_value());

  std::map<std::string, int> redrives = RedrivesByJob(ids);
  EXPECT_EQ(redrives.size(), ids.size());
  for (const auto& [id, n] : redrives) EXPECT_EQ(n, 1) << id;
  EXPECT_EQ(CountStatus("payments", JobStatus::kDeadletter), 10);  // died again, left alone
  EXPECT_EQ(Get(ids[600]).max_retries, 2);                         // budget extend:2
}

// While this node serves requests an operation runs small batches (a request
// that arrives while one runs waits less); a pass that met none runs a full
// one. (A rate keeps the background loop from running more batches between
// the test's passes.)
TEST_F(EngineOperationsTest, AnOperationYieldsToRequestsWithSmallerBatches) {
  EngineOptions options;
  options.operation_batch = 100;
  StartEngine(options);
  EnqueueDeadMany("payments", 300);
  CreateOperationParams p = RetryQueue("payments");
  p.rate_per_second = 10'000;
  const Operation created = Create(p);

  Pass();  // requests came since the runner last looked: a yielding batch
  EXPECT_EQ(GetOp(created.id).done, operation_ops::kYieldBatch);
  clock_.Advance(milliseconds(10));
  Pass();  // none since that pass began: a full batch
  EXPECT_EQ(GetOp(created.id).done, operation_ops::kYieldBatch + 100);
  Enqueue("other");  // a request on another queue
  clock_.Advance(milliseconds(10));
  Pass();
  EXPECT_EQ(GetOp(created.id).done, 2 * operation_ops::kYieldBatch + 100);
}

TEST(OperationYieldTest, SmallBatchesAndAPauseForTheShareOnlyWhenBusy) {
  using operation_ops::YieldingBatch;
  using operation_ops::YieldPause;
  EXPECT_EQ(YieldingBatch(100, true, 25), operation_ops::kYieldBatch);
  EXPECT_EQ(YieldingBatch(100, false, 25), 100);
  EXPECT_EQ(YieldingBatch(8, true, 25), 8);       // never more than the configured batch
  EXPECT_EQ(YieldingBatch(100, true, 100), 100);  // 100 %: never yields
  // Batches that ran 2 ms at a 25 % share: 6 ms of pause, 2 of every 8 ms.
  EXPECT_EQ(YieldPause(milliseconds(2), 25), milliseconds(6));
  EXPECT_EQ(YieldPause(milliseconds(3), 50), milliseconds(3));
  EXPECT_EQ(YieldPause(milliseconds(1), 1), milliseconds(99));
  EXPECT_EQ(YieldPause(milliseconds(2), 100), std::nullopt);
  EXPECT_EQ(YieldPause(Micros(0), 25), std::nullopt);  // nothing ran: no pause
}

TEST_F(EngineOperationsTest, WithoutARateBatchesRunBackToBack) {
  EngineOptions options;
  options.operation_batch = 100;
  StartEngine(options);
  std::vector<std::string> ids = EnqueueDeadMany("emails", 250);
  CreateOperationParams p;
  p.action = OperationAction::kPurge;
  p.filter.queue_name = "emails";
  const Operation created = Create(p);
  ASSERT_TRUE(WaitUntil([&] {
    Pass();
    return GetOp(created.id).state == OperationState::kCompleted;
  }));
  const Operation op = GetOp(created.id);
  EXPECT_EQ(op.done, 250);
  EXPECT_EQ(CountStatus("emails", JobStatus::kDeadletter), 0);
  auto missing = Call<Job>(&Engine::GetJob, std::string(ids[0]));
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
}

TEST_F(EngineOperationsTest, CancelStopsItAndAFinishedOneCannotBeCancelled) {
  EnqueueDeadMany("payments", 30);
  CreateOperationParams p = RetryQueue("payments");
  p.rate_per_second = 10;
  const Operation created = Create(p);
  Pass();
  EXPECT_EQ(GetOp(created.id).done, 10);
  auto cancelled = Call<Operation>(&Engine::CancelOperation, std::string(created.id));
  ASSERT_TRUE(cancelled.ok());
  EXPECT_EQ(cancelled->state, OperationState::kCancelled);
  clock_.Advance(seconds(10));
  Pass();
  Operation op = GetOp(created.id);
  EXPECT_EQ(op.state, OperationState::kCancelled);
  EXPECT_EQ(op.done, 10);
  EXPECT_EQ(CountStatus("payments", JobStatus::kDeadletter), 20);
  auto again = Call<Operation>(&Engine::CancelOperation, std::string(created.id));
  EXPECT_EQ(again.status().code(), ErrorCode::kConflict);
  auto unknown = Call<Operation>(&Engine::CancelOperation, std::string("nope"));
  EXPECT_EQ(unknown.status().code(), ErrorCode::kNotFound);
}

TEST_F(EngineOperationsTest, CancelAndReleaseGoThroughTheirTransitions) {
  const std::string waiting = Enqueue("reports");
  EnqueueParams later;
  later.scheduled_at = clock_.Now() + seconds(3600);
  const std::string scheduled = Enqueue("reports", later);
  const std::string other = Enqueue("other");
  CreateOperationParams p;
  p.action = OperationAction::kCancel;
  p.filter.queue_name = "reports";
  p.status = JobStatus::kScheduled;
  const Operation created = Create(p);
  EXPECT_EQ(created.matched, 1);
  ASSERT_TRUE(WaitUntil([&] {
    Pass();
    return GetOp(created.id).state == OperationState::kCompleted;
  }));
  EXPECT_EQ(Get(scheduled).status, JobStatus::kCancelled);
  EXPECT_EQ(Get(waiting).status, JobStatus::kPending);
  EXPECT_EQ(Get(other).status, JobStatus::kPending);
}

TEST_F(EngineOperationsTest, AtMostTenAreUnfinished) {
  // Each first batch takes one job (rate 1e-4/s): with jobs left, none finishes.
  EnqueueDeadMany("payments", static_cast<int>(2 * kMaxUnfinishedOperations));
  for (size_t i = 0; i < kMaxUnfinishedOperations; ++i) {
    CreateOperationParams p = RetryQueue("payments");
    p.rate_per_second = 1e-4;
    Create(p);
  }
  auto r = Call<CreateOperationResult>(&Engine::CreateOperation, RetryQueue("payments"));
  EXPECT_EQ(r.status().code(), ErrorCode::kConflict);
}

TEST_F(EngineOperationsTest, TwoEnginesOnOneFileRunItOnce) {
  std::vector<std::string> ids = EnqueueDeadMany("payments", 600);
  // A second node on the same file (as a second process would open it).
  auto second_store = store::SqliteStore::Open((dir_ / "redrive.db").string());
  ASSERT_TRUE(second_store.ok());
  SystemRandom second_random{7};
  EngineOptions options;
  options.node_id = "node-b";
  options.max_idle = milliseconds(50);
  options.operation_batch = 100;
  auto second = std::make_unique<Engine>(**second_store, clock_, second_random, options);
  ASSERT_TRUE(second->Start().ok());
  const Operation created = Create(RetryQueue("payments"));
  ASSERT_TRUE(WaitUntil([&] {
    Pass();
    second->RunServicesOnce();
    return GetOp(created.id).state == OperationState::kCompleted;
  }));
  EXPECT_EQ(GetOp(created.id).done, 600);
  std::map<std::string, int> redrives = RedrivesByJob(ids);
  EXPECT_EQ(redrives.size(), ids.size());
  for (const auto& [id, n] : redrives) EXPECT_EQ(n, 1) << id;
  // One node led the duty: every redrive names the same node.
  std::set<std::string> nodes;
  auto tx = store_->BeginRead();
  for (const std::string& id : ids) {
    auto history = (*tx)->GetHistory(id);
    ASSERT_TRUE(history.ok());
    for (const HistoryEntry& e : *history) {
      if (e.details_json.find(kOperationSource) != std::string::npos) {
        nodes.insert(e.node_id.value_or(""));
      }
    }
  }
  EXPECT_EQ(nodes.size(), 1u);
  second.reset();
}

}  // namespace
}  // namespace redrive::engine::testing
