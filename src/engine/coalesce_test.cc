// Requests that wait for the writer together run as one op
// (EngineOptions::coalesce_writes): claims of one queue through one
// ops::ClaimFor, completes, fails and heartbeats through one
// ops::ApplyToJobs, enqueues through one ops::EnqueueBatch.
// The engine runs on the PooledExecutor over a FaultStore whose BeginWrite a
// test holds: every op submitted meanwhile waits, unstarted, so the requests
// made then meet in one group deterministically.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>

#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "engine/fault_store_test_util.h"

namespace redrive::engine {
namespace {

using testing::FaultStore;
using Point = FaultStore::Point;

// Starts engine.Complete(c); its answer comes in the future.
std::future<Status> CompleteLater(Engine& engine, CompleteParams c) {
  auto p = std::make_shared<std::promise<Status>>();
  auto f = p->get_future();
  engine.Complete(std::move(c), [p](Status s) { p->set_value(std::move(s)); });
  return f;
}

// Starts `call`; the result it is answered with comes in the future.
template <typename T>
std::future<Result<T>> Later(std::function<void(Callback<T>)> call) {
  auto p = std::make_shared<std::promise<Result<T>>>();
  auto f = p->get_future();
  call([p](Result<T> r) { p->set_value(std::move(r)); });
  return f;
}

class CoalesceTest : public testing::EngineTest {
 protected:
  void SetUp() override {
    pooled_ = true;
    EngineTest::SetUp();
  }

  // Every BeginWrite waits while held (background duties' too).
  void Hold() {
    {
      std::lock_guard lock(hold_mu_);
      held_ = true;
    }
    fault_store_->SetPlan([this](Point p, int) {
      if (p == Point::kBeginWrite) {
        std::unique_lock lock(hold_mu_);
        hold_cv_.wait(lock, [this] { return !held_; });
      }
      return Status::Ok();
    });
  }
  void Release() {
    {
      std::lock_guard lock(hold_mu_);
      held_ = false;
    }
    hold_cv_.notify_all();
  }

  std::future<Result<ClaimResult>> StartClaimBy(const std::string& worker, int limit,
                                                const std::string& queue = "q") {
    ClaimParams p;
    p.queue_name = queue;
    p.worker_id = worker;
    p.limit = limit;
    return StartClaim(std::move(p));
  }
  // Claims of wa (one job), wb (two) and wc (one) of "q", made while the
  // writer is held, in that order.
  std::array<std::future<Result<ClaimResult>>, 3> ThreeClaimsThatWaitTogether() {
    Hold();
    std::array<std::future<Result<ClaimResult>>, 3> claims{
        StartClaimBy("wa", 1), StartClaimBy("wb", 2), StartClaimBy("wc", 1)};
    Release();
    return claims;
  }
  std::string EnqueueWithPriority(int priority) {
    EnqueueParams e;
    e.priority = priority;
    return Enqueue("q", e);
  }
  std::future<Status> StartComplete(const Job& job, std::optional<std::string> lease) {
    CompleteParams c;
    c.job_id = job.id;
    c.worker_id = *job.assigned_worker_id;
    c.lease_id = std::move(lease);
    return CompleteLater(*engine_, std::move(c));
  }

  std::mutex hold_mu_;
  std::condition_variable hold_cv_;
  bool held_ = false;
};

std::vector<std::string> IdsOf(const Result<ClaimResult>& r) {
  std::vector<std::string> ids;
  if (r.ok()) {
    for (const Job& j : r->jobs) ids.push_back(j.id);
  }
  return ids;
}

// Three claims of one queue made while the writer is busy read the queue
// once and are dealt the jobs in the claim order, in the order they came,
// each up to its limit, each leased to its own worker.
TEST_F(CoalesceTest, ClaimsOfOneQueueThatWaitTogetherReadOnceAndAreDealtInOrder) {
  std::vector<std::string> ids;
  for (int prio = 6; prio >= 1; --prio) ids.push_back(EnqueueWithPriority(prio));
  const int reads_before = fault_store_->claim_reads();
  auto claims = ThreeClaimsThatWaitTogether();
  auto ra = claims[0].get(), rb = claims[1].get(), rc = claims[2].get();
  ASSERT_TRUE(ra.ok() && rb.ok() && rc.ok());
  EXPECT_THAT(IdsOf(ra), ::testing::ElementsAre(ids[0]));
  EXPECT_THAT(IdsOf(rb), ::testing::ElementsAre(ids[1], ids[2]));
  EXPECT_THAT(IdsOf(rc), ::testing::ElementsAre(ids[3]));
  EXPECT_EQ(ra->jobs[0].assigned_worker_id, "wa");
  EXPECT_EQ(rb->jobs[1].assigned_worker_id, "wb");
  EXPECT_EQ(rc->jobs[0].assigned_worker_id, "wc");
  EXPECT_NE(rb->jobs[0].lease_id, rb->jobs[1].lease_id);
  EXPECT_EQ(fault_store_->claim_reads() - reads_before, 1);
  // Each job's history names its own worker.
  auto history = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(ids[3]));
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->back().event_type, "processing");
  EXPECT_EQ(history->back().worker_id, "wc");
  EXPECT_EQ(Get(ids[4]).status, JobStatus::kPending);
}

// The same claims with coalescing off: one read each (the test above is not
// passing by chance).
TEST_F(CoalesceTest, WithCoalescingOffEveryClaimReadsForItself) {
  EngineOptions options;
  options.coalesce_writes = false;
  StartEngine(options);
  for (int i = 0; i < 4; ++i) Enqueue("q");
  const int reads_before = fault_store_->claim_reads();
  std::set<std::string> all;
  for (auto& claim : ThreeClaimsThatWaitTogether()) {
    for (const std::string& id : IdsOf(claim.get())) all.insert(id);
  }
  EXPECT_EQ(all.size(), 4u);
  EXPECT_EQ(fault_store_->claim_reads() - reads_before, 3);
}

// Claims of different queues do not meet; a deregistered worker in a group
// gets nothing and the others are not held back by it; the acks a claim
// carries are applied for it alone.
TEST_F(CoalesceTest, AGroupServesEachClaimerAsItWouldAlone) {
  RegisterWorkerParams reg;
  reg.queue_name = "q";
  reg.hostname = "h";
  auto gone = Call<WorkerInfo>(&Engine::RegisterWorker, reg);
  ASSERT_TRUE(gone.ok());
  ASSERT_TRUE(CallStatus(&Engine::DeregisterWorker, std::string(gone->id)).ok());
  const std::string held_job = Enqueue("q");
  auto first = Claim("q", 1, 30, "wa");
  ASSERT_EQ(first.size(), 1u);
  for (int i = 0; i < 3; ++i) Enqueue("q");
  Enqueue("other");
  const int reads_before = fault_store_->claim_reads();
  Hold();
  auto by_gone = StartClaimBy(gone->id, 2);
  ClaimParams with_ack;
  with_ack.queue_name = "q";
  with_ack.worker_id = "wa";
  with_ack.limit = 1;
  with_ack.acks.push_back({held_job, *first[0].lease_id, std::nullopt, std::nullopt, false, {}});
  with_ack.acks.push_back({held_job, "stale", std::nullopt, std::nullopt, false, {}});
  auto acking = StartClaim(with_ack);
  auto other = StartClaimBy("wo", 5, "other");
  auto rest = StartClaimBy("wb", 5);
  Release();
  auto r_gone = by_gone.get();
  ASSERT_TRUE(r_gone.ok());
  EXPECT_TRUE(r_gone->jobs.empty());
  auto r_ack = acking.get();
  ASSERT_TRUE(r_ack.ok()) << r_ack.status().ToString();
  ASSERT_EQ(r_ack->ack_results.size(), 2u);
  EXPECT_EQ(r_ack->ack_results[0].new_status, JobStatus::kCompleted);
  EXPECT_EQ(r_ack->ack_results[1].status.code(), ErrorCode::kConflict);  // completed already
  EXPECT_EQ(r_ack->jobs.size(), 1u);
  EXPECT_EQ(rest.get()->jobs.size(), 2u);
  EXPECT_EQ(other.get()->jobs.size(), 1u);
  EXPECT_EQ(fault_store_->claim_reads() - reads_before, 2);  // q's group and other's
  EXPECT_EQ(Get(held_job).status, JobStatus::kCompleted);
}

// Completes, fails and heartbeats made while the writer is busy are read in
// one batch and written in one; each is answered as it would be alone.
TEST_F(CoalesceTest, CompletesFailsAndHeartbeatsThatWaitTogetherEachGetTheirOwnAnswer) {
  for (int i = 0; i < 4; ++i) Enqueue("q");
  auto jobs = Claim("q", 4);
  ASSERT_EQ(jobs.size(), 4u);
  const int reads_before = fault_store_->job_batch_reads();
  Hold();
  auto done = StartComplete(jobs[0], jobs[0].lease_id);
  auto stale = StartComplete(jobs[1], std::string("not-the-lease"));
  FailParams f;
  f.job_id = jobs[2].id;
  f.worker_id = "w1";
  f.lease_id = jobs[2].lease_id;
  f.error = "boom";
  auto failed = Later<FailResult>([&](Callback<FailResult> cb) { engine_->Fail(f, cb); });
  HeartbeatParams h;
  h.job_id = jobs[3].id;
  h.worker_id = "w1";
  h.lease_id = jobs[3].lease_id;
  h.lease_duration = std::chrono::seconds(120);
  auto beat = Later<Job>([&](Callback<Job> cb) { engine_->Heartbeat(h, cb); });
  CompleteParams missing;
  missing.job_id = "no-such-job";
  missing.worker_id = "w1";
  auto unknown = CompleteLater(*engine_, missing);
  Release();
  EXPECT_TRUE(done.get().ok());
  EXPECT_EQ(stale.get().code(), ErrorCode::kLeaseExpired);
  auto fr = failed.get();
  ASSERT_TRUE(fr.ok()) << fr.status().ToString();
  EXPECT_TRUE(fr->outcome.will_retry);
  EXPECT_EQ(fr->job.status, JobStatus::kScheduled);
  auto hb = beat.get();
  ASSERT_TRUE(hb.ok()) << hb.status().ToString();
  ASSERT_TRUE(hb->lease_expires_at && jobs[3].lease_expires_at);
  EXPECT_GT(*hb->lease_expires_at, *jobs[3].lease_expires_at);
  EXPECT_EQ(unknown.get().code(), ErrorCode::kNotFound);
  EXPECT_EQ(fault_store_->job_batch_reads() - reads_before, 1);
  EXPECT_EQ(Get(jobs[0].id).status, JobStatus::kCompleted);
  EXPECT_EQ(Get(jobs[1].id).status, JobStatus::kProcessing);
  EXPECT_EQ(Get(jobs[2].id).status, JobStatus::kScheduled);
}

std::future<Result<EnqueueResult>> StartEnqueue(Engine& engine, EnqueueParams p) {
  return Later<EnqueueResult>(
      [&](Callback<EnqueueResult> done) { engine.Enqueue(std::move(p), std::move(done)); });
}

EnqueueParams JobOf(std::string queue, std::string payload_json = "{}") {
  EnqueueParams p;
  p.queue_name = std::move(queue);
  p.payload_json = std::move(payload_json);
  return p;
}

// Enqueues made while the writer is busy, of any queue, insert in one batch
// and are each answered as they would be alone: a refused one alone, and
// two with one idempotency key make one job (the second answered
// created:false with the first's id).
TEST_F(CoalesceTest, EnqueuesThatWaitTogetherInsertOnceAndEachGetTheirOwnAnswer) {
  const int batches_before = fault_store_->insert_batches();
  Hold();
  auto a = StartEnqueue(*engine_, JobOf("q", R"({"n":1})"));
  auto b = StartEnqueue(*engine_, JobOf("other", R"({"n":2})"));
  EnqueueParams expired = JobOf("q");
  expired.expires_at = clock_.Now() - std::chrono::seconds(1);
  auto refused = StartEnqueue(*engine_, expired);
  EnqueueParams keyed = JobOf("q", R"({"n":3})");
  keyed.idempotency_key = "k";
  auto first = StartEnqueue(*engine_, keyed);
  auto replay = StartEnqueue(*engine_, keyed);
  Release();
  auto ra = a.get(), rb = b.get(), rfirst = first.get(), rreplay = replay.get();
  ASSERT_TRUE(ra.ok() && rb.ok() && rfirst.ok() && rreplay.ok());
  EXPECT_EQ(refused.get().status().code(), ErrorCode::kValidation);
  EXPECT_TRUE(ra->created && rb->created && rfirst->created);
  EXPECT_FALSE(rreplay->created);
  EXPECT_EQ(rreplay->id, rfirst->id);
  EXPECT_EQ(std::set<std::string>({ra->id, rb->id, rfirst->id}).size(), 3u);
  EXPECT_EQ(fault_store_->insert_batches() - batches_before, 1);
  EXPECT_EQ(Get(ra->id).queue_name, "q");
  EXPECT_EQ(Get(ra->id).payload, R"({"n":1})");
  EXPECT_EQ(Get(rb->id).queue_name, "other");
  EXPECT_EQ(Get(rfirst->id).payload, R"({"n":3})");
  auto stats = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>("q"));
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->pending, 2);  // a and the keyed job
  auto history = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(rb->id));
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ(history->front().event_type, "created");
}

// The same enqueues with coalescing off: one insert each.
TEST_F(CoalesceTest, WithCoalescingOffEveryEnqueueInsertsForItself) {
  EngineOptions options;
  options.coalesce_writes = false;
  StartEngine(options);
  const int batches_before = fault_store_->insert_batches();
  Hold();
  std::vector<std::future<Result<EnqueueResult>>> enqueues;
  for (int i = 0; i < 3; ++i) enqueues.push_back(StartEnqueue(*engine_, JobOf("q")));
  Release();
  for (auto& f : enqueues) EXPECT_TRUE(f.get().ok());
  EXPECT_EQ(fault_store_->insert_batches() - batches_before, 3);
}

// Payloads bound a group: enqueues whose payloads together pass 1 MiB run
// in more than one batch.
TEST_F(CoalesceTest, AnEnqueueGroupCarriesAtMostAMebibyteOfPayloads) {
  const std::string big = "\"" + std::string(400 * 1024, 'x') + "\"";
  const int batches_before = fault_store_->insert_batches();
  Hold();
  std::vector<std::future<Result<EnqueueResult>>> enqueues;
  for (int i = 0; i < 3; ++i) enqueues.push_back(StartEnqueue(*engine_, JobOf("q", big)));
  enqueues.push_back(StartEnqueue(*engine_, JobOf("q")));
  Release();
  for (auto& f : enqueues) EXPECT_TRUE(f.get().ok());
  // Two of 400 KiB fit, the third opens a group that the small one joins.
  EXPECT_EQ(fault_store_->insert_batches() - batches_before, 2);
}

// A group whose commit loses a race runs again with the same members on a
// fresh transaction, and every member is answered once, with the committed
// run's result.
TEST_F(CoalesceTest, AGroupWhoseCommitAbortsRunsAgainAndAnswersEveryMemberOnce) {
  for (int i = 0; i < 3; ++i) Enqueue("q");
  Hold();
  auto a = StartClaimBy("wa", 1);
  auto b = StartClaimBy("wb", 1);
  auto c = StartClaimBy("wc", 1);
  // The first two commits after the release lose a race (the group's,
  // unless a background duty's came first: then the group's is among them
  // or commits at once; either way every member is answered once).
  auto aborts = std::make_shared<std::atomic<int>>(2);
  fault_store_->SetPlan([this, aborts](Point p, int) {
    if (p == Point::kBeginWrite) {
      std::unique_lock lock(hold_mu_);
      hold_cv_.wait(lock, [this] { return !held_; });
    }
    if (p == Point::kCommit && aborts->fetch_sub(1) > 0) {
      return Status::Aborted("could not serialize access");
    }
    return Status::Ok();
  });
  const int commits_before = fault_store_->commit_calls();
  Release();
  std::set<std::string> all;
  for (auto* f : {&a, &b, &c}) {
    auto r = f->get();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->jobs.size(), 1u);
    all.insert(r->jobs[0].id);
  }
  EXPECT_EQ(all.size(), 3u);
  EXPECT_GE(fault_store_->commit_calls() - commits_before, 3);
  auto stats = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>("q"));
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->processing, 3);
  EXPECT_EQ(stats->pending, 0);
}

// On both executors.
class CoalesceByExecutorTest : public testing::EngineByExecutorTest {};

// After Stop every claim, complete and enqueue is answered, one after
// another on the same queue too: an op the stopped writer refuses without
// running closes its group, so no later request joins a group nobody will run.
TEST_P(CoalesceByExecutorTest, AfterStopEveryClaimCompleteAndEnqueueIsAnsweredUnavailable) {
  engine_->Stop();
  for (int i = 0; i < 3; ++i) {
    ClaimParams p;
    p.queue_name = "q";
    p.worker_id = "w";
    auto f = StartClaim(p);
    ASSERT_EQ(f.wait_for(std::chrono::seconds(2)), std::future_status::ready) << "claim " << i;
    EXPECT_EQ(f.get().status().code(), ErrorCode::kUnavailable);
    CompleteParams c;
    c.job_id = "some-job";
    c.worker_id = "w";
    auto answered = CompleteLater(*engine_, c);
    ASSERT_EQ(answered.wait_for(std::chrono::seconds(2)), std::future_status::ready)
        << "complete " << i;
    EXPECT_EQ(answered.get().code(), ErrorCode::kUnavailable);
    auto enqueued = StartEnqueue(*engine_, JobOf("q"));
    ASSERT_EQ(enqueued.wait_for(std::chrono::seconds(2)), std::future_status::ready)
        << "enqueue " << i;
    EXPECT_EQ(enqueued.get().status().code(), ErrorCode::kUnavailable);
  }
}

INSTANTIATE_TEST_SUITE_P(Executors, CoalesceByExecutorTest, testing::kBothExecutors,
                         testing::ExecutorTestName);

}  // namespace
}  // namespace redrive::engine
