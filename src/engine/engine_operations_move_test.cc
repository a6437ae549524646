// Move operations and the retention of finished operations, with the manual
// clock: 1,200 waiting jobs move to another queue in batches, a worker
// parked on the target queue is woken and claims them, a processing job
// stays where its holder claimed it; finished operations are deleted after
// --operation-retention, unfinished ones never.
#include "engine/engine_test_util.h"

namespace redrive::engine::testing {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

class EngineMoveTest : public EngineTest {
 protected:
  // `n` pending jobs of `queue`, enqueued in bulks of 1,000: their ids.
  std::vector<std::string> EnqueueMany(const std::string& queue, int n) {
    std::vector<std::string> ids;
    for (int start = 0; start < n; start += 1000) {
      BulkEnqueueParams bulk;
      for (int i = start; i < std::min(n, start + 1000); ++i) {
        EnqueueParams p;
        p.queue_name = queue;
        p.payload_json = R"({"i":)" + std::to_string(i) + "}";
        bulk.jobs.push_back(p);
      }
      auto r = Call<std::vector<BulkItemResult>>(&Engine::EnqueueBulk, std::move(bulk));
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) continue;
      for (const BulkItemResult& item : *r) ids.push_back(item.job_id);
    }
    return ids;
  }
  static CreateOperationParams MoveQueue(const std::string& from, const std::string& to) {
    CreateOperationParams p;
    p.action = OperationAction::kMove;
    p.filter.queue_name = from;
    p.selector_json = R"({"queue_name":")" + from + R"("})";
    p.target_queue = to;
    p.created_by = "oncall";
    return p;
  }
  Result<CreateOperationResult> CreateOp(CreateOperationParams p) {
    return Call<CreateOperationResult>(&Engine::CreateOperation, std::move(p));
  }
  Operation GetOp(const std::string& id) {
    auto r = Call<Operation>(&Engine::GetOperation, std::string(id));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Operation{};
  }
  // Runs batches until the operation finished.
  Operation RunToEnd(const std::string& id) {
    EXPECT_TRUE(WaitUntil([&] {
      engine_->RunServicesOnce();
      return IsFinished(GetOp(id).state);
    }));
    return GetOp(id);
  }
  long long CountStatus(const std::string& queue, JobStatus st) {
    auto counts = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>(queue));
    EXPECT_TRUE(counts.ok());
    return counts.ok() ? counts->of(st) : -1;
  }
  std::vector<HistoryEntry> History(const std::string& id) {
    auto h = (*store_->BeginRead())->GetHistory(id);
    EXPECT_TRUE(h.ok());
    return h.ok() ? *h : std::vector<HistoryEntry>{};
  }
};

TEST_F(EngineMoveTest, MovesManyJobsInBatchesAndAWorkerOfTheTargetClaimsThem) {
  EngineOptions options;
  options.operation_yield_share = 100;  // whole batches of 100, whatever the requests
  StartEngine(options);
  std::vector<std::string> ids = EnqueueMany("payments", 1200);
  ASSERT_EQ(ids.size(), 1200u);
  // One is being worked on: its holder would complete it in the wrong queue.
  std::vector<Job> held = Claim("payments", 1, 300, "w-old");
  ASSERT_EQ(held.size(), 1u);
  // A worker of the target queue waits for work that is not there yet.
  ClaimParams parked;
  parked.queue_name = "payments-slow";
  parked.worker_id = "w-slow";
  parked.limit = 10;
  parked.wait = milliseconds(60'000);
  auto woken = StartClaim(parked);
  ASSERT_TRUE(WaitParked(1));

  // The dry run counts what would move, and moves nothing.
  CreateOperationParams dry = MoveQueue("payments", "payments-slow");
  dry.dry_run = true;
  auto preview = CreateOp(dry);
  ASSERT_TRUE(preview.ok()) << preview.status().ToString();
  EXPECT_EQ(preview->matched, 1199);
  EXPECT_EQ(CountStatus("payments", JobStatus::kPending), 1199);

  auto created = CreateOp(MoveQueue("payments", "payments-slow"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::string op_id = created->operation.id;
  EXPECT_EQ(created->operation.matched, 1199);
  engine_->RunServicesOnce();
  Operation op = GetOp(op_id);
  // At least the first batch (the background loop may have run the next
  // ones too, due at once); while it runs, only whole batches (100 each by
  // default).
  const long long batch = EngineOptions{}.operation_batch;
  EXPECT_GE(op.done, batch);
  if (op.state == OperationState::kRunning) {
    EXPECT_EQ(op.done % batch, 0) << op.done;
  }

  // The first batch's commit woke the parked worker, which took its 10.
  ASSERT_EQ(woken.wait_for(seconds(10)), std::future_status::ready);
  Result<ClaimResult> got = woken.get();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->jobs.size(), 10u);
  for (const Job& j : got->jobs) EXPECT_EQ(j.queue_name, "payments-slow");

  op = RunToEnd(op_id);
  EXPECT_EQ(op.state, OperationState::kCompleted);
  EXPECT_EQ(op.done, 1199);
  EXPECT_EQ(op.failed, 0);
  EXPECT_EQ(CountStatus("payments", JobStatus::kPending), 0);
  EXPECT_EQ(CountStatus("payments-slow", JobStatus::kPending), 1189);
  EXPECT_EQ(CountStatus("payments-slow", JobStatus::kProcessing), 10);
  EXPECT_EQ(Claim("payments-slow", 100, 30, "w-slow").size(), 100u);

  // The held job stayed, and its holder completes it where it claimed it.
  const Job still = Get(held[0].id);
  EXPECT_EQ(still.queue_name, "payments");
  EXPECT_EQ(still.status, JobStatus::kProcessing);
  EXPECT_TRUE(CallStatus(&Engine::Complete,
                         CompleteParams{held[0].id, "w-old", *held[0].lease_id, std::nullopt, {}})
                  .ok());

  // Each moved job's history says from where to where, who, and which operation.
  const std::string moved = ids.back() == held[0].id ? ids.front() : ids.back();
  int moves = 0;
  for (const HistoryEntry& e : History(moved)) {
    if (e.event_type != "moved") continue;
    ++moves;
    EXPECT_EQ(e.details_json, R"({"from_queue":"payments","to_queue":"payments-slow","by":)"
                              R"("oncall","operation_id":")" +
                                  op_id + R"("})");
  }
  EXPECT_EQ(moves, 1);
  EXPECT_EQ(Sample(Scrape(), R"(redrive_jobs_moved_total{queue="payments-slow"})"), 1199);
}

// Scheduled jobs keep their due time and dead letters stay dead, in the
// target queue's DLQ; a blocked or cancelled job is not selected.
TEST_F(EngineMoveTest, WaitingJobsKeepTheirStatusAndDeadOnesStayDead) {
  // First: EnqueueDead claims the queue's oldest pending job.
  const std::string dead = EnqueueDead("reports", "upstream 504");
  const std::string pending = Enqueue("reports");
  EnqueueParams later;
  later.scheduled_at = clock_.Now() + hours(1);
  const std::string scheduled = Enqueue("reports", later);
  const std::string cancelled = Enqueue("reports");
  ASSERT_TRUE(CallStatus(&Engine::Cancel, std::string(cancelled)).ok());

  auto created = CreateOp(MoveQueue("reports", "reports-b"));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->operation.matched, 3);
  const Operation op = RunToEnd(created->operation.id);
  EXPECT_EQ(op.done, 3);

  EXPECT_EQ(Get(pending).queue_name, "reports-b");
  EXPECT_EQ(Get(pending).status, JobStatus::kPending);
  const Job s = Get(scheduled);
  EXPECT_EQ(s.queue_name, "reports-b");
  EXPECT_EQ(s.status, JobStatus::kScheduled);
  EXPECT_EQ(s.scheduled_at, clock_.Now() + hours(1));
  const Job d = Get(dead);
  EXPECT_EQ(d.queue_name, "reports-b");
  EXPECT_EQ(d.status, JobStatus::kDeadletter);
  EXPECT_EQ(d.last_error, "upstream 504");
  EXPECT_EQ(Get(cancelled).queue_name, "reports");
  EXPECT_EQ(CountStatus("reports-b", JobStatus::kDeadletter), 1);
}

// The selector's status narrows a move; a move with no target is refused.
TEST_F(EngineMoveTest, StatusNarrowsItAndATargetIsRequired) {
  const std::string dead = EnqueueDead("reports");
  const std::string pending = Enqueue("reports");
  CreateOperationParams p = MoveQueue("reports", "reports-dlq");
  p.status = JobStatus::kDeadletter;
  auto created = CreateOp(p);
  ASSERT_TRUE(created.ok());
  RunToEnd(created->operation.id);
  EXPECT_EQ(Get(dead).queue_name, "reports-dlq");
  EXPECT_EQ(Get(pending).queue_name, "reports");

  CreateOperationParams untargeted = MoveQueue("reports", "x");
  untargeted.target_queue.reset();
  auto refused = CreateOp(untargeted);
  EXPECT_EQ(refused.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(refused.status().field(), "target_queue");
}

// --operation-retention: an operation that finished is deleted once it is
// older than the retention; an unfinished one is never deleted.
TEST_F(EngineMoveTest, FinishedOperationsAreDeletedAfterTheRetention) {
  EngineOptions options;
  options.operation_retention = hours(24);
  options.retention_interval = seconds(60);
  StartEngine(options);
  Enqueue("reports");
  auto finished = CreateOp(MoveQueue("reports", "reports-b"));
  ASSERT_TRUE(finished.ok());
  RunToEnd(finished->operation.id);
  // One left running: one job every 10,000 s over ten jobs.
  for (int i = 0; i < 10; ++i) Enqueue("other");
  CreateOperationParams slow = MoveQueue("other", "other-b");
  slow.rate_per_second = 1e-4;
  auto running = CreateOp(slow);
  ASSERT_TRUE(running.ok());
  engine_->RunServicesOnce();
  ASSERT_EQ(GetOp(running->operation.id).state, OperationState::kRunning);

  clock_.Advance(hours(23));
  engine_->RunServicesOnce();
  EXPECT_EQ(GetOp(finished->operation.id).state, OperationState::kCompleted);  // kept

  clock_.Advance(hours(1) + seconds(61));
  engine_->RunServicesOnce();
  auto gone = Call<Operation>(&Engine::GetOperation, std::string(finished->operation.id));
  EXPECT_EQ(gone.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(GetOp(running->operation.id).state, OperationState::kRunning);
  auto listed = Call<std::vector<Operation>>(&Engine::ListOperations, 10, 0);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, running->operation.id);
}

}  // namespace
}  // namespace redrive::engine::testing
