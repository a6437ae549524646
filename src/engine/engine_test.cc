#include "engine/engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "engine/engine_test_util.h"

namespace redrive::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
// Every test runs on both write executors (the PostgreSQL one on SQLite).
using testing::EngineByExecutorTest;
using testing::Executor;

BackoffPolicy Backoff(int base_ms, int max_ms) {
  return {milliseconds(base_ms), milliseconds(max_ms), milliseconds(0)};
}

std::vector<std::string> EventTypes(const std::vector<HistoryEntry>& h) {
  std::vector<std::string> out;
  for (const auto& e : h) out.push_back(e.event_type);
  return out;
}

TEST_P(EngineByExecutorTest, EnqueueClaimCompleteRecordsHistory) {
  const std::string id = Enqueue("emails");
  auto jobs = Claim("emails");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, id);
  EXPECT_EQ(jobs[0].status, JobStatus::kProcessing);
  EXPECT_EQ(jobs[0].lease_expires_at, clock_.Now() + seconds(30));
  EXPECT_EQ(jobs[0].attempts, 1);

  Status st = CallStatus(&Engine::Complete, CompleteParams{id, "w1", *jobs[0].lease_id,
                                                           std::string(R"({"ok":true})")});
  ASSERT_TRUE(st.ok()) << st.ToString();
  Job done = Get(id);
  EXPECT_EQ(done.status, JobStatus::kCompleted);
  EXPECT_EQ(done.result, R"({"ok":true})");
  EXPECT_FALSE(done.lease_id.has_value());

  auto history = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(id));
  ASSERT_TRUE(history.ok());
  EXPECT_THAT(EventTypes(*history), ::testing::ElementsAre("created", "processing", "completed"));

  // A second complete of a finished job is a conflict.
  st = CallStatus(&Engine::Complete, CompleteParams{id, "w1", *jobs[0].lease_id, std::nullopt});
  EXPECT_EQ(st.code(), ErrorCode::kConflict);
}

TEST_P(EngineByExecutorTest, FailuresBackOffExponentiallyThenDeadLetter) {
  EnqueueParams p;
  p.max_retries = 2;
  p.backoff = Backoff(1000, 60000);
  const std::string id = Enqueue("q", p);
  const Instant t0 = clock_.Now();

  for (int attempt = 1; attempt <= 2; ++attempt) {
    auto jobs = Claim("q");
    ASSERT_EQ(jobs.size(), 1u) << "attempt " << attempt;
    auto r = Call<FailResult>(&Engine::Fail, FailParams{id, "w1", *jobs[0].lease_id, "boom"});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->outcome.will_retry);
    EXPECT_EQ(r->job.status, JobStatus::kScheduled);
    const auto delay = milliseconds(1000 << (attempt - 1));
    EXPECT_EQ(r->job.scheduled_at, clock_.Now() + delay);
    // Not claimable before the backoff ends, claimable right at it.
    EXPECT_TRUE(Claim("q").empty());
    clock_.Advance(delay);
  }
  auto jobs = Claim("q");
  ASSERT_EQ(jobs.size(), 1u);
  auto r = Call<FailResult>(&Engine::Fail, FailParams{id, "w1", *jobs[0].lease_id, "boom"});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->outcome.will_retry);
  EXPECT_EQ(r->job.status, JobStatus::kDeadletter);
  EXPECT_EQ(r->job.dead_reason, DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ(r->job.deadlettered_at, t0 + seconds(3));
  EXPECT_EQ(Get(id).attempts, 3);
}

TEST_P(EngineByExecutorTest, SchedulerPromotesDueRetries) {
  EnqueueParams p;
  p.backoff = Backoff(5000, 5000);
  const std::string id = Enqueue("q", p);
  auto jobs = Claim("q");
  ASSERT_TRUE(Call<FailResult>(&Engine::Fail, FailParams{id, "w1", *jobs[0].lease_id, "x"}).ok());
  EXPECT_EQ(Get(id).status, JobStatus::kScheduled);
  clock_.Advance(seconds(4));
  engine_->RunServicesOnce();
  EXPECT_EQ(Get(id).status, JobStatus::kScheduled);
  clock_.Advance(seconds(1));
  engine_->RunServicesOnce();
  EXPECT_EQ(Get(id).status, JobStatus::kPending);
}

TEST_P(EngineByExecutorTest, ExpiredLeaseIsReapedAndStaleHolderIsFenced) {
  EnqueueParams p;
  p.backoff = Backoff(0, 0);
  const std::string id = Enqueue("q", p);
  auto first = Claim("q", 1, 5, "w1");
  ASSERT_EQ(first.size(), 1u);
  clock_.Advance(seconds(5));
  // The background loop may reap it first (it runs on the same clock); either
  // way the outcome below is what counts.
  engine_->RunServicesOnce();
  Job reaped = Get(id);
  EXPECT_EQ(reaped.status, JobStatus::kPending);
  EXPECT_EQ(reaped.retry_count, 1);
  EXPECT_EQ(reaped.lease_expiries, 1);
  EXPECT_EQ(reaped.last_error, "lease expired");

  auto second = Claim("q", 1, 30, "w2");
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second[0].lease_id, first[0].lease_id);
  // The first holder's late completion is refused; the second's succeeds.
  Status late = CallStatus(&Engine::Complete, CompleteParams{id, "w1", *first[0].lease_id, {}});
  EXPECT_EQ(late.code(), ErrorCode::kLeaseExpired);
  auto hb =
      Call<Job>(&Engine::Heartbeat, HeartbeatParams{id, "w1", *first[0].lease_id, seconds(30)});
  EXPECT_EQ(hb.status().code(), ErrorCode::kLeaseExpired);
  EXPECT_TRUE(
      CallStatus(&Engine::Complete, CompleteParams{id, "w2", *second[0].lease_id, {}}).ok());
}

// Without a lease_id (Spooled's SDK), the worker_id must name the holder: a
// reaped job claimed again by w2 is not w1's, and w2's own calls succeed.
TEST_P(EngineByExecutorTest, LeaseCallsWithoutLeaseIdFenceOnTheCurrentHolder) {
  EnqueueParams p;
  p.backoff = Backoff(0, 0);
  const std::string id = Enqueue("q", p);
  ASSERT_EQ(Claim("q", 1, 5, "w1").size(), 1u);
  clock_.Advance(seconds(5));
  engine_->RunServicesOnce();
  ASSERT_EQ(Claim("q", 1, 30, "w2").size(), 1u);
  EXPECT_EQ(CallStatus(&Engine::Complete, CompleteParams{id, "w1", std::nullopt, {}}).code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(
      Call<FailResult>(&Engine::Fail, FailParams{id, "w1", std::nullopt, "late"}).status().code(),
      ErrorCode::kLeaseExpired);
  auto hb = Call<Job>(&Engine::Heartbeat, HeartbeatParams{id, "w2", std::nullopt, seconds(60)});
  ASSERT_TRUE(hb.ok()) << hb.status().ToString();
  EXPECT_EQ(hb->lease_expires_at, clock_.Now() + seconds(60));
  EXPECT_TRUE(CallStatus(&Engine::Complete, CompleteParams{id, "w2", std::nullopt, {}}).ok());
  EXPECT_EQ(Get(id).status, JobStatus::kCompleted);
}

TEST_P(EngineByExecutorTest, TimeoutCapsHeartbeatsAndCountsAsLeaseLoss) {
  EnqueueParams p;
  p.timeout_seconds = 20;
  p.max_retries = 0;
  const std::string id = Enqueue("q", p);
  auto jobs = Claim("q", 1, 15);
  clock_.Advance(seconds(10));
  auto hb =
      Call<Job>(&Engine::Heartbeat, HeartbeatParams{id, "w1", *jobs[0].lease_id, seconds(30)});
  ASSERT_TRUE(hb.ok());
  EXPECT_EQ(hb->lease_expires_at, *jobs[0].started_at + seconds(20));
  clock_.Advance(seconds(10));
  engine_->RunServicesOnce();
  Job dead = Get(id);
  EXPECT_EQ(dead.status, JobStatus::kDeadletter);
  EXPECT_EQ(dead.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_THAT(dead.last_error.value_or(""), ::testing::HasSubstr("timed out"));
}

TEST_P(EngineByExecutorTest, ClaimOrderIsPriorityThenAge) {
  EnqueueParams low, high;
  low.priority = -5;
  high.priority = 10;
  const std::string a = Enqueue("q", low);
  clock_.Advance(milliseconds(1));
  const std::string b = Enqueue("q");
  clock_.Advance(milliseconds(1));
  const std::string c = Enqueue("q", high);
  clock_.Advance(milliseconds(1));
  const std::string d = Enqueue("q");
  auto jobs = Claim("q", 10);
  ASSERT_EQ(jobs.size(), 4u);
  EXPECT_EQ(jobs[0].id, c);
  EXPECT_EQ(jobs[1].id, b);
  EXPECT_EQ(jobs[2].id, d);
  EXPECT_EQ(jobs[3].id, a);
}

TEST_P(EngineByExecutorTest, IdempotentEnqueueReturnsExistingJob) {
  EnqueueParams p;
  p.idempotency_key = "order-42";
  const std::string id = Enqueue("q", p);
  p.queue_name = "q";
  p.payload_json = "{}";
  auto again = Call<EnqueueResult>(&Engine::Enqueue, p);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->id, id);
  EXPECT_FALSE(again->created);
}

TEST_P(EngineByExecutorTest, IdempotentReplayWinsOverADisabledQueue) {
  EnqueueParams p;
  p.idempotency_key = "k-disabled";
  const std::string id = Enqueue("q", p);
  QueueConfigPatch off;
  off.enabled = false;
  ASSERT_TRUE(Call<QueueConfig>(&Engine::ConfigureQueue, std::string("q"), off).ok());
  p.queue_name = "q";
  p.payload_json = "{}";
  auto replay = Call<EnqueueResult>(&Engine::Enqueue, p);
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->id, id);
  EXPECT_FALSE(replay->created);
  EnqueueParams fresh;
  fresh.queue_name = "q";
  fresh.payload_json = "{}";
  EXPECT_EQ(Call<EnqueueResult>(&Engine::Enqueue, fresh).status().code(), ErrorCode::kConflict);
}

TEST_P(EngineByExecutorTest, ANewQueuePastMaxQueuesIsRefusedAndTheRestOfABulkGoesIn) {
  EngineOptions options;
  options.max_queues = 2;
  StartEngine(options);
  Enqueue("a");
  Enqueue("b");
  EnqueueParams third;
  third.queue_name = "c";
  third.payload_json = "{}";
  Result<EnqueueResult> refused = Call<EnqueueResult>(&Engine::Enqueue, third);
  EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(refused.status().message(), QueueLimitMessage("c", 2));
  EXPECT_EQ(Call<QueueConfig>(&Engine::ConfigureQueue, std::string("d"), QueueConfigPatch{})
                .status()
                .code(),
            ErrorCode::kConflict);

  // A bulk enqueue: the item for a new queue is refused, the others go in.
  BulkEnqueueParams bulk;
  for (const char* queue : {"a", "c", "b"}) {
    EnqueueParams p;
    p.queue_name = queue;
    p.payload_json = "{}";
    bulk.jobs.push_back(p);
  }
  auto items = Call<std::vector<BulkItemResult>>(&Engine::EnqueueBulk, bulk);
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  ASSERT_EQ(items->size(), 3u);
  EXPECT_TRUE((*items)[0].error.ok());
  EXPECT_EQ((*items)[1].error.code(), ErrorCode::kConflict);
  EXPECT_TRUE((*items)[2].error.ok());

  // Deleting a queue makes room.
  ASSERT_TRUE(CallStatus(&Engine::DeleteQueue, std::string("b"), true).ok());
  EXPECT_TRUE(Call<EnqueueResult>(&Engine::Enqueue, third).ok());
}

TEST_P(EngineByExecutorTest, ABulksJobsAreListedInTheOrderTheyWereSent) {
  // They share one created_at; ids of one op ascend (UuidV7Sequence), so a
  // listing (newest first) shows the bulk in reverse order of its items, and
  // a walk by (created_at, id) meets the rows in the order they were inserted.
  BulkEnqueueParams bulk;
  for (int i = 0; i < 300; ++i) {
    EnqueueParams p;
    p.queue_name = "ordered";
    p.payload_json = "{}";
    bulk.jobs.push_back(p);
  }
  auto items = Call<std::vector<BulkItemResult>>(&Engine::EnqueueBulk, bulk);
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  ASSERT_EQ(items->size(), 300u);
  ListJobsParams list;
  list.queue_name = "ordered";
  list.limit = 300;
  auto listed = Call<std::vector<Job>>(&Engine::ListJobs, list);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 300u);
  for (size_t i = 0; i < 300; ++i) {
    ASSERT_EQ((*listed)[299 - i].id, (*items)[i].job_id) << i;
  }
}

TEST_P(EngineByExecutorTest, SilentWorkersAreShownOffline) {
  RegisterWorkerParams reg;
  reg.queue_name = "q";
  reg.hostname = "h";
  auto w = Call<WorkerInfo>(&Engine::RegisterWorker, reg);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(Call<WorkerInfo>(&Engine::GetWorker, std::string(w->id))->status, "healthy");
  clock_.Advance(seconds(30));
  EXPECT_EQ(Call<WorkerInfo>(&Engine::GetWorker, std::string(w->id))->status, "offline");
  auto all = Call<std::vector<WorkerInfo>>(&Engine::ListWorkers, ListWorkersParams{});
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].status, "offline");
}

// On group commit the parked claim is handed the new job in the transaction
// that creates it: one commit of the two requests (one fsync between the
// enqueue and the worker's answer), not a commit each. (Duties commit
// meanwhile, alone: a commit of exactly two ops is the pair.)
TEST_P(EngineByExecutorTest, LongPollWakesOnEnqueue) {
  ClaimParams p = LongPoll("q", "w", milliseconds(5000));
  const auto start = std::chrono::steady_clock::now();
  auto f = StartClaim(p);
  ASSERT_TRUE(WaitParked(1));
  EXPECT_EQ(f.wait_for(milliseconds(0)), std::future_status::timeout);
  auto commits_of_two = [this] {
    const std::string text = Scrape();
    return Sample(text, R"(redrive_commit_batch_size_bucket{le="2"})") -
           Sample(text, R"(redrive_commit_batch_size_bucket{le="1"})");
  };
  const double before = commits_of_two();
  const std::string id = Enqueue("q");
  auto r = f.get();
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->jobs.size(), 1u);
  EXPECT_EQ(r->jobs[0].id, id);
  EXPECT_LT(waited, milliseconds(2000));
  EXPECT_EQ(engine_->parked_claims(), 0u);
  if (GetParam() == Executor::kGroupCommit) {
    EXPECT_GE(commits_of_two() - before, 1);
  }
}

// A claim that comes while its queue is known to be empty (the claim before
// it found nothing, and nothing has woken the queue since) parks without a
// transaction; the jobs that come then reach it as they reach any parked
// claim. (That it ran no transaction shows on two nodes: two_nodes_test.cc.)
TEST_P(EngineByExecutorTest, AClaimParkedOnAnEmptyLookTakesTheNextJob) {
  ClaimParams p = LongPoll("q", "w", milliseconds(5000));
  auto first = StartClaim(p);
  ASSERT_TRUE(WaitParked(1));
  auto second = StartClaim(LongPoll("q", "w2", milliseconds(5000)));
  ASSERT_TRUE(WaitParked(2));
  const std::string a = Enqueue("q");
  const std::string b = Enqueue("q");
  auto r1 = first.get();
  auto r2 = second.get();
  ASSERT_TRUE(r1.ok() && r2.ok());
  ASSERT_EQ(r1->jobs.size(), 1u);
  ASSERT_EQ(r2->jobs.size(), 1u);
  EXPECT_EQ(std::set<std::string>({r1->jobs[0].id, r2->jobs[0].id}), std::set<std::string>({a, b}));
  EXPECT_EQ(engine_->parked_claims(), 0u);
}

// The wait runs on the engine's clock: it ends when the (manual) clock
// reaches the deadline, not a moment before. (20 s: far longer than the test
// waits in real time, so a wall-clock deadline would fail it.)
TEST_P(EngineByExecutorTest, LongPollTimesOutEmpty) {
  ClaimParams p = LongPoll("q", "w", seconds(20));
  auto f = StartClaim(p);
  ASSERT_TRUE(WaitParked(1));
  clock_.Advance(milliseconds(19'999));
  engine_->RunServicesOnce();
  EXPECT_EQ(f.wait_for(milliseconds(0)), std::future_status::timeout);
  EXPECT_EQ(engine_->parked_claims(), 1u);
  clock_.Advance(milliseconds(1));
  engine_->RunServicesOnce();
  ASSERT_EQ(f.wait_for(seconds(5)), std::future_status::ready);
  auto r = f.get();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->jobs.empty());
  EXPECT_EQ(engine_->parked_claims(), 0u);
}

// No RunServicesOnce: the background loop itself sees the manual clock move.
TEST_P(EngineByExecutorTest, TheBackgroundLoopEndsALongPollWhenTheClockPassesItsDeadline) {
  ClaimParams p = LongPoll("q", "w", seconds(20));
  auto f = StartClaim(p);
  ASSERT_TRUE(WaitParked(1));
  clock_.Advance(seconds(20));
  ASSERT_EQ(f.wait_for(seconds(5)), std::future_status::ready);
  auto r = f.get();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->jobs.empty());
}

TEST_P(EngineByExecutorTest, PausedQueueHandsOutNothingUntilResumed) {
  Enqueue("q");
  ASSERT_TRUE(
      Call<QueueConfig>(&Engine::PauseQueue, std::string("q"), std::optional<std::string>("deploy"))
          .ok());
  EXPECT_TRUE(Claim("q").empty());
  ASSERT_TRUE(Call<QueueConfig>(&Engine::ResumeQueue, std::string("q")).ok());
  EXPECT_EQ(Claim("q").size(), 1u);
}

// A queue can be held before its first job: pause creates it, as config does,
// and its first job then waits for a resume.
TEST_P(EngineByExecutorTest, PauseAndResumeWorkBeforeTheQueueHasJobs) {
  auto paused = Call<QueueConfig>(&Engine::PauseQueue, std::string("fresh"),
                                  std::optional<std::string>("not yet"));
  ASSERT_TRUE(paused.ok()) << paused.status().message();
  EXPECT_TRUE(paused->paused);
  Enqueue("fresh");
  EXPECT_TRUE(Claim("fresh").empty());
  ASSERT_TRUE(Call<QueueConfig>(&Engine::ResumeQueue, std::string("fresh")).ok());
  EXPECT_EQ(Claim("fresh").size(), 1u);
  auto resumed = Call<QueueConfig>(&Engine::ResumeQueue, std::string("other"));
  ASSERT_TRUE(resumed.ok()) << resumed.status().message();
  EXPECT_FALSE(resumed->paused);
  EXPECT_TRUE(Call<QueueView>(&Engine::GetQueue, std::string("other")).ok());
}

TEST_P(EngineByExecutorTest, DeregisterReleasesJobsWithoutChargingRetry) {
  RegisterWorkerParams reg;
  reg.queue_name = "q";
  reg.hostname = "h";
  auto w = Call<WorkerInfo>(&Engine::RegisterWorker, reg);
  ASSERT_TRUE(w.ok());
  const std::string id = Enqueue("q");
  ASSERT_EQ(Claim("q", 1, 30, w->id).size(), 1u);
  ASSERT_TRUE(CallStatus(&Engine::DeregisterWorker, std::string(w->id)).ok());
  Job j = Get(id);
  EXPECT_EQ(j.status, JobStatus::kPending);
  EXPECT_EQ(j.retry_count, 0);
  auto history = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(id));
  EXPECT_EQ(history->back().event_type, "released");
}

TEST_P(EngineByExecutorTest, DeregisteredWorkerClaimsNothingUntilItRegistersAgain) {
  RegisterWorkerParams reg;
  reg.queue_name = "q";
  reg.hostname = "h";
  auto w = Call<WorkerInfo>(&Engine::RegisterWorker, reg);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(CallStatus(&Engine::DeregisterWorker, std::string(w->id)).ok());
  Enqueue("q");
  EXPECT_TRUE(Claim("q", 1, 30, w->id).empty());
  reg.worker_id = w->id;
  ASSERT_TRUE(Call<WorkerInfo>(&Engine::RegisterWorker, reg).ok());
  EXPECT_EQ(Claim("q", 1, 30, w->id).size(), 1u);
}

TEST_P(EngineByExecutorTest, DeadlineSendsUnclaimedJobToDlq) {
  EnqueueParams p;
  p.expires_at = clock_.Now() + seconds(10);
  p.scheduled_at = clock_.Now() + seconds(20);
  const std::string id = Enqueue("q", p);
  clock_.Advance(seconds(10));
  engine_->RunServicesOnce();
  Job j = Get(id);
  EXPECT_EQ(j.status, JobStatus::kDeadletter);
  EXPECT_EQ(j.dead_reason, DeadReason::kExpired);
}

TEST_P(EngineByExecutorTest, RetentionDeletesOldCompletedJobs) {
  QueueConfigPatch patch;
  patch.retention_completed = std::optional<seconds>(seconds(60));
  ASSERT_TRUE(Call<QueueConfig>(&Engine::ConfigureQueue, std::string("q"), patch).ok());
  const std::string id = Enqueue("q");
  auto jobs = Claim("q");
  ASSERT_TRUE(CallStatus(&Engine::Complete, CompleteParams{id, "w1", *jobs[0].lease_id, {}}).ok());
  clock_.Advance(seconds(59));
  engine_->RunServicesOnce();
  EXPECT_TRUE(Call<Job>(&Engine::GetJob, std::string(id)).ok());
  clock_.Advance(seconds(2));
  engine_->RunServicesOnce();
  EXPECT_EQ(Call<Job>(&Engine::GetJob, std::string(id)).status().code(), ErrorCode::kNotFound);
}

TEST_P(EngineByExecutorTest, ConcurrentRequestsAllCommitAndGroupCommitSharesThem) {
  // One op a request: this counts the executor's transactions, not the
  // coalescing of enqueues (coalesce_test.cc).
  EngineOptions one_op_each;
  one_op_each.coalesce_writes = false;
  StartEngine(one_op_each);
  constexpr int kN = 400;
  // Commits and the requests they carried, from the group-commit metrics.
  auto commit_counts = [this] {
    const std::string text = Scrape();
    return std::pair<double, double>(Sample(text, "redrive_commits_total"),
                                     Sample(text, "redrive_commit_batch_size_sum"));
  };
  const auto [commits_before, ops_before] = commit_counts();
  std::vector<std::future<Result<EnqueueResult>>> futures;
  std::vector<std::shared_ptr<std::promise<Result<EnqueueResult>>>> promises;
  for (int i = 0; i < kN; ++i) {
    auto p = std::make_shared<std::promise<Result<EnqueueResult>>>();
    futures.push_back(p->get_future());
    EnqueueParams e;
    // Moved-in strings: assigning literals draws a false
    // -Wmaybe-uninitialized from GCC 12 at -O3.
    e.queue_name = std::string("q");
    e.payload_json = std::string("{}");
    engine_->Enqueue(e, [p](Result<EnqueueResult> r) { p->set_value(std::move(r)); });
  }
  for (auto& f : futures) ASSERT_TRUE(f.get().ok());
  const auto [commits_after, ops_after] = commit_counts();
  EXPECT_GE(ops_after - ops_before, kN);  // background sweeps may add a few
  if (GetParam() == Executor::kGroupCommit) {
    // Requests that arrive together share a transaction (and its fsync).
    EXPECT_LT(commits_after - commits_before, kN / 2);
  } else {
    // Each request is a transaction of its own (the database shares flushes).
    EXPECT_GE(commits_after - commits_before, kN);
  }
  auto stats = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>("q"));
  EXPECT_EQ(stats->pending, kN);
}

TEST_P(EngineByExecutorTest, AcksRideOnClaim) {
  const std::string a = Enqueue("q");
  const std::string b = Enqueue("q");
  auto jobs = Claim("q", 2);
  ASSERT_EQ(jobs.size(), 2u);
  ClaimParams p;
  p.queue_name = "q";
  p.worker_id = "w1";
  p.acks.push_back({jobs[0].id, *jobs[0].lease_id, std::nullopt, std::nullopt, false, {}});
  p.acks.push_back({jobs[1].id, "stale-lease", std::nullopt, std::string("err"), false, {}});
  auto r = Call<ClaimResult>(&Engine::Claim, p);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->ack_results.size(), 2u);
  EXPECT_TRUE(r->ack_results[0].status.ok());
  EXPECT_EQ(r->ack_results[0].new_status, JobStatus::kCompleted);
  EXPECT_EQ(r->ack_results[1].status.code(), ErrorCode::kLeaseExpired);
  EXPECT_TRUE(r->jobs.empty());
}

// A batch of acks is read and written in one batch each; every item still
// gets the result it would get alone, in order.
TEST_P(EngineByExecutorTest, ABatchOfAcksGivesEachItemItsOwnResult) {
  for (int i = 0; i < 4; ++i) Enqueue("q");
  auto jobs = Claim("q", 4);
  ASSERT_EQ(jobs.size(), 4u);
  ClaimParams p;
  p.queue_name = "q";
  p.worker_id = "w1";
  p.acks.push_back(
      {jobs[0].id, *jobs[0].lease_id, std::string("{\"ok\":1}"), std::nullopt, false, {}});
  p.acks.push_back({"no-such-job", "x", std::nullopt, std::nullopt, false, {}});
  p.acks.push_back({jobs[1].id, *jobs[1].lease_id, std::nullopt, std::string("boom"), false, {}});
  p.acks.push_back({jobs[2].id, "stale-lease", std::nullopt, std::nullopt, false, {}});
  p.acks.push_back({jobs[3].id, *jobs[3].lease_id, std::nullopt, std::string("bad"), true, {}});
  auto r = Call<ClaimResult>(&Engine::Claim, p);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->ack_results.size(), 5u);
  EXPECT_EQ(r->ack_results[0].new_status, JobStatus::kCompleted);
  EXPECT_EQ(r->ack_results[1].status.code(), ErrorCode::kNotFound);
  EXPECT_EQ(r->ack_results[1].job_id, "no-such-job");
  EXPECT_EQ(r->ack_results[2].new_status, JobStatus::kScheduled);
  ASSERT_TRUE(r->ack_results[2].failure);
  EXPECT_TRUE(r->ack_results[2].failure->will_retry);
  EXPECT_EQ(r->ack_results[3].status.code(), ErrorCode::kLeaseExpired);
  EXPECT_EQ(r->ack_results[4].new_status, JobStatus::kDeadletter);
  ASSERT_TRUE(r->ack_results[4].failure);
  EXPECT_FALSE(r->ack_results[4].failure->will_retry);
  // What the store holds agrees, history included.
  EXPECT_EQ(Call<Job>(&Engine::GetJob, std::string(jobs[0].id))->result, "{\"ok\":1}");
  EXPECT_EQ(Call<Job>(&Engine::GetJob, std::string(jobs[2].id))->status, JobStatus::kProcessing);
  auto history = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(jobs[3].id));
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->back().event_type, "deadlettered");
}

// One job acked twice in one batch: the second sees the first's write.
TEST_P(EngineByExecutorTest, AJobAckedTwiceInOneBatchIsCompletedOnce) {
  Enqueue("q");
  auto jobs = Claim("q", 1);
  ASSERT_EQ(jobs.size(), 1u);
  ClaimParams p;
  p.queue_name = "q";
  p.worker_id = "w1";
  p.acks.push_back({jobs[0].id, *jobs[0].lease_id, std::nullopt, std::nullopt, false, {}});
  p.acks.push_back({jobs[0].id, *jobs[0].lease_id, std::nullopt, std::nullopt, false, {}});
  auto r = Call<ClaimResult>(&Engine::Claim, p);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->ack_results.size(), 2u);
  EXPECT_EQ(r->ack_results[0].new_status, JobStatus::kCompleted);
  EXPECT_FALSE(r->ack_results[1].status.ok());
}

TEST_P(EngineByExecutorTest, StopAnswersParkedClaimsAndRefusesNewWork) {
  ClaimParams p = LongPoll("q", "w", milliseconds(30000));
  auto f = StartClaim(p);
  ASSERT_TRUE(WaitParked(1));  // parked, not still on its first attempt
  EXPECT_EQ(f.wait_for(milliseconds(0)), std::future_status::timeout);
  engine_->Stop();
  ASSERT_EQ(f.wait_for(seconds(2)), std::future_status::ready);
  EXPECT_TRUE(f.get().ok());
  EXPECT_EQ(engine_->parked_claims(), 0u);
  EnqueueParams e;
  e.queue_name = "q";
  e.payload_json = "{}";
  EXPECT_EQ(Call<EnqueueResult>(&Engine::Enqueue, e).status().code(), ErrorCode::kUnavailable);
}

INSTANTIATE_TEST_SUITE_P(Executors, EngineByExecutorTest, testing::kBothExecutors,
                         testing::ExecutorTestName);

}  // namespace
}  // namespace redrive::engine
