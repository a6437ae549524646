// redrive::Worker against the real server: concurrency, retries to the DLQ,
// non-retryable failures, lease loss mid-handler, graceful shutdown.
#include "redrive/worker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>

#include "e2e/support/long_polls.h"
#include "sdk/support/sdk_fixture.h"

namespace redrive::sdk_test {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::Contains;
using ::testing::HasSubstr;
namespace json = boost::json;

class WorkerTest : public SdkTest {
 protected:
  WorkerOptions Defaults(const std::string& queue) {
    return {.queue = queue,
            .concurrency = 1,
            .lease = seconds(10),
            .claim_wait = milliseconds(500),
            .grace_period = seconds(5),
            .worker_id = queue + "-worker"};
  }
  JobStatus StatusOf(const std::string& id) {
    auto job = client_->GetJob(id);
    return job.ok() ? job->status : JobStatus::kPending;
  }
  std::vector<std::string> History(const std::string& id) {
    std::vector<std::string> types;
    auto history = client_->History(id);
    EXPECT_TRUE(history.ok()) << history.status().ToString();
    if (history.ok()) {
      for (const auto& e : *history) types.push_back(e.event_type);
    }
    return types;
  }
};

TEST_F(WorkerTest, ProcessesJobsWithConcurrencyN) {
  const auto q = NewQueue();
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(Enqueue(q, {.payload = {{"n", i}}}));
  std::atomic<int> running{0}, peak{0};
  auto options = Defaults(q);
  options.concurrency = 4;
  Worker worker(Options(), options, [&](const JobContext& job) {
    int now = ++running;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    job.token().WaitFor(milliseconds(300));
    --running;
    return HandlerResult::Success({{"double", job.payload().at("n").as_int64() * 2}});
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return client_->Stats(q)->completed == 8; }));
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_EQ(peak, 4);
  EXPECT_EQ(worker.stats().completed, 8);
  auto job = client_->GetJob(ids[3]);
  EXPECT_EQ(sdk::ResultOf(*job), (json::value{{"double", 6}}));
  EXPECT_EQ(client_->GetWorker(worker.worker_id())->status, "offline");
}

TEST_F(WorkerTest, RetriesToTheDlqAndTheDeathCallbackFires) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {.max_retries = 2, .backoff = NoBackoff()});
  std::atomic<int> attempts{0};
  Worker worker(Options(), Defaults(q), [&](const JobContext& job) -> HandlerResult {
    ++attempts;
    EXPECT_EQ(job.retry_count(), job.attempts() - 1);
    throw std::runtime_error("upstream 503 on attempt " + std::to_string(job.attempts()));
  });
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> deaths;
  worker.OnDeath([&](const sdk::ClaimedJob& job, const sdk::FailResult& r, const std::string& e) {
    std::lock_guard lock(mu);
    EXPECT_EQ(r.dead_reason, DeadReason::kMaxRetriesExceeded);
    deaths.emplace_back(job.id, e);
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return StatusOf(id) == JobStatus::kDeadletter; }));
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_EQ(attempts, 3);
  ASSERT_EQ(deaths.size(), 1u);
  EXPECT_EQ(deaths[0].first, id);
  EXPECT_THAT(deaths[0].second, HasSubstr("upstream 503 on attempt 3"));
  EXPECT_THAT(*client_->GetJob(id)->last_error, HasSubstr("handler threw"));
  EXPECT_EQ(worker.stats().dead, 1);
}

TEST_F(WorkerTest, NonRetryableFailureGoesStraightToTheDlq) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {.max_retries = 5});
  std::atomic<int> deaths{0};
  Worker worker(Options(), Defaults(q), [&](const JobContext&) {
    return HandlerResult::NonRetryableFailure("malformed address");
  });
  worker.OnDeath([&](const sdk::ClaimedJob&, const sdk::FailResult& r, const std::string&) {
    EXPECT_EQ(r.dead_reason, DeadReason::kNonRetryable);
    ++deaths;
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return deaths == 1; }));
  EXPECT_TRUE(worker.Stop().ok());
  auto job = client_->GetJob(id);
  EXPECT_EQ(job->status, JobStatus::kDeadletter);
  EXPECT_EQ(job->last_error, "malformed address");
  EXPECT_EQ(job->attempts, 1);
}

TEST_F(WorkerTest, RetryableFailureHonoursRetryAfter) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {.max_retries = 3});
  std::atomic<int> attempts{0};
  Worker worker(Options(), Defaults(q), [&](const JobContext&) {
    // The queue's default backoff (1 s+) would be slower than retry_after 0.
    if (++attempts == 1) return HandlerResult::RetryableFailure("busy", milliseconds(0));
    return HandlerResult::Success();
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return StatusOf(id) == JobStatus::kCompleted; }, seconds(3)));
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_EQ(client_->GetJob(id)->retry_count, 1);
}

// Heartbeats too slow for the lease (every 2 × lease): the lease runs out
// mid-handler, the token is cancelled, the late result is dropped, and the
// server hands the job out again.
TEST_F(WorkerTest, LeaseLossCancelsTheTokenAndDropsTheLateResult) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {.max_retries = 3, .backoff = NoBackoff()});
  auto options = Defaults(q);
  options.lease = seconds(5);
  options.heartbeat_fraction = 2.0;
  std::atomic<bool> first_was_cancelled{false};
  Worker worker(Options(), options, [&](const JobContext& job) {
    if (job.attempts() == 1) {
      first_was_cancelled = job.token().WaitFor(seconds(15));
      return HandlerResult::Success({{"attempt", 1}});  // late: must not be sent
    }
    return HandlerResult::Success({{"attempt", job.attempts()}});
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return StatusOf(id) == JobStatus::kCompleted; }, seconds(15)));
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_TRUE(first_was_cancelled);
  auto job = client_->GetJob(id);
  EXPECT_EQ(sdk::ResultOf(*job), (json::value{{"attempt", 2}}));
  EXPECT_EQ(job->lease_expiries, 1);
  EXPECT_THAT(History(id), Contains("lease_expired"));
  EXPECT_EQ(worker.stats().leases_lost, 1);
  EXPECT_EQ(worker.stats().results_dropped, 1);
}

// An operator cancels a running job: the next heartbeat answers
// LEASE_EXPIRED and the handler is told to stop.
TEST_F(WorkerTest, HeartbeatAnsweringLeaseExpiredCancelsTheToken) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  auto options = Defaults(q);
  options.lease = seconds(6);
  options.heartbeat_fraction = 1.0 / 12;  // every 500 ms
  std::atomic<bool> started{false}, cancelled{false};
  Worker worker(Options(), options, [&](const JobContext& job) {
    started = true;
    cancelled = job.token().WaitFor(seconds(10));
    return HandlerResult::Success();
  });
  ASSERT_TRUE(worker.Start().ok());
  ASSERT_TRUE(WaitUntil([&] { return started.load(); }));
  ASSERT_TRUE(WaitUntil([&] { return worker.stats().claimed == 1; }));
  // At least one good heartbeat first: it moved the lease past the claim's.
  ASSERT_TRUE(WaitUntil([&] {
    auto job = client_->GetJob(id);
    return job.ok() && job->started_at && job->lease_expires_at &&
           *job->lease_expires_at > *job->started_at + options.lease;
  }));
  ASSERT_TRUE(client_->Cancel(id).ok());
  EXPECT_TRUE(WaitUntil([&] { return cancelled.load(); }, seconds(3)));
  EXPECT_TRUE(WaitUntil([&] { return worker.running_jobs() == 0; }));
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_EQ(StatusOf(id), JobStatus::kCancelled);
  EXPECT_EQ(worker.stats().results_dropped, 1);
  EXPECT_EQ(worker.stats().completed, 0);
}

TEST_F(WorkerTest, StopWaitsForARunningHandler) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  std::atomic<bool> started{false};
  Worker worker(Options(), Defaults(q), [&](const JobContext& job) {
    started = true;
    job.token().WaitFor(milliseconds(800));  // ordinary work, not interrupted by Stop
    return HandlerResult::Success({{"finished", true}});
  });
  ASSERT_TRUE(worker.Start().ok());
  ASSERT_TRUE(WaitUntil([&] { return started.load(); }));
  EXPECT_TRUE(worker.Stop().ok());
  auto job = client_->GetJob(id);
  EXPECT_EQ(job->status, JobStatus::kCompleted);
  EXPECT_EQ(sdk::ResultOf(*job), (json::value{{"finished", true}}));
  EXPECT_EQ(client_->GetWorker(worker.worker_id())->status, "offline");
}

TEST_F(WorkerTest, AfterTheGracePeriodDeregisterReleasesWithoutARetryCharge) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  auto options = Defaults(q);
  options.grace_period = milliseconds(300);
  std::atomic<bool> started{false}, cancelled{false};
  Worker worker(Options(), options, [&](const JobContext& job) {
    started = true;
    cancelled = job.token().WaitFor(seconds(10));
    return HandlerResult::Success();  // dropped: the job was released
  });
  ASSERT_TRUE(worker.Start().ok());
  ASSERT_TRUE(WaitUntil([&] { return started.load(); }));
  const auto before = std::chrono::steady_clock::now();
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - before, seconds(3));
  EXPECT_TRUE(cancelled);
  auto job = client_->GetJob(id);
  EXPECT_EQ(job->status, JobStatus::kPending);
  EXPECT_EQ(job->retry_count, 0);
  EXPECT_THAT(History(id), Contains("released"));
  EXPECT_EQ(worker.stats().results_dropped, 1);
}

TEST_F(WorkerTest, StopEndsAnIdleLongPollPromptly) {
  auto options = Defaults(NewQueue());
  options.claim_wait = seconds(20);
  Worker worker(Options(), options, [](const JobContext&) { return HandlerResult::Success(); });
  ASSERT_TRUE(worker.Start().ok());
  e2e::HttpClient observer = server_->Client();
  ASSERT_TRUE(e2e::WaitForParkedClaim(observer, options.queue));  // the claim is waiting
  const auto before = std::chrono::steady_clock::now();
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_LT(std::chrono::steady_clock::now() - before, seconds(2));
}

TEST_F(WorkerTest, StartFailsWhenTheServerIsUnreachable) {
  Worker worker(ClientOptions{.server_url = "http://127.0.0.1:1"}, Defaults("q"),
                [](const JobContext&) { return HandlerResult::Success(); });
  EXPECT_EQ(worker.Start().code(), ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace redrive::sdk_test
