// redrive::Worker against the real server: concurrency, retries to the DLQ,
// non-retryable failures, lease loss mid-handler, graceful shutdown, and
// batching (acks on claims, prefetch), counted by the server's own metrics.
#include "redrive/worker.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/json/parse.hpp>
#include <map>
#include <mutex>
#include <set>

#include "e2e/support/long_polls.h"
#include "e2e/support/request_counts.h"
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
  long long Requests(const std::string& route) {
    e2e::HttpClient observer = server_->Client();
    return e2e::RequestsAnswered(observer, route);
  }
  std::map<std::string, long long> WorkerRequests() {
    e2e::HttpClient observer = server_->Client();
    return e2e::WorkerRequests(observer);
  }
  std::vector<std::string> EnqueueMany(const std::string& queue, int n) {
    std::vector<std::string> ids;
    for (int start = 0; start < n; start += 1000) {
      sdk::BulkEnqueueRequest bulk{.queue_name = queue};
      for (int i = start; i < std::min(n, start + 1000); ++i) bulk.jobs.push_back({.payload = i});
      auto r = client_->EnqueueBulk(bulk);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (r.ok()) {
        for (const auto& s : r->succeeded) ids.push_back(s.job_id);
      }
    }
    return ids;
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

// With concurrency 8 the outcomes ride on the claims: the server sees far
// fewer requests than the two per job of claim + complete, and every job is
// run and completed exactly once.
TEST_F(WorkerTest, BatchedAcksCompleteEveryJobOnceInFarFewerRequests) {
  const auto q = NewQueue();
  constexpr int kJobs = 400;
  const auto ids = EnqueueMany(q, kJobs);
  ASSERT_EQ(ids.size(), size_t{kJobs});
  std::mutex mu;
  std::map<std::string, int> runs;
  auto options = Defaults(q);
  options.concurrency = 8;
  Worker worker(Options(), options, [&](const JobContext& job) {
    std::lock_guard lock(mu);
    ++runs[job.id()];
    return HandlerResult::Success();
  });
  const auto before = WorkerRequests();
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return client_->Stats(q)->completed == kJobs; }, seconds(30)));
  EXPECT_TRUE(worker.Stop().ok());
  auto after = WorkerRequests();
  const long long requests = e2e::RequestsBetween(before, after);
  EXPECT_EQ(after["{id}/complete"], before.at("{id}/complete"));  // every one as an ack
  EXPECT_LT(requests, kJobs / 2) << "claim " << after["claim"] - before.at("claim") << ", ack "
                                 << after["ack"] - before.at("ack");
  EXPECT_EQ(worker.stats().completed, kJobs);
  EXPECT_EQ(worker.stats().claimed, kJobs);
  EXPECT_EQ(worker.stats().results_dropped, 0);
  std::lock_guard lock(mu);
  EXPECT_EQ(runs.size(), size_t{kJobs});
  for (const auto& [id, n] : runs) EXPECT_EQ(n, 1) << id;
}

// batch_acks off and no prefetch: one complete per job, as before batching.
TEST_F(WorkerTest, BatchingTurnedOffCompletesEachJobWithItsOwnCall) {
  const auto q = NewQueue();
  constexpr int kJobs = 60;
  EnqueueMany(q, kJobs);
  auto options = Defaults(q);
  options.concurrency = 8;
  options.prefetch = 0;
  options.batch_acks = false;
  Worker worker(Options(), options, [](const JobContext&) { return HandlerResult::Success(); });
  const auto before = WorkerRequests();
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return client_->Stats(q)->completed == kJobs; }));
  EXPECT_TRUE(worker.Stop().ok());
  auto after = WorkerRequests();
  EXPECT_EQ(after["{id}/complete"] - before.at("{id}/complete"), kJobs);
  EXPECT_EQ(after["ack"], before.at("ack"));
  EXPECT_EQ(worker.stats().completed, kJobs);
}

// Failures travel as acks too, those with details included, and an ack that
// dead-letters fires OnDeath with the server's answer (the dead_reason it
// recorded, the job's retry_count).
TEST_F(WorkerTest, FailureAcksThatDeadLetterFireTheDeathCallback) {
  const auto q = NewQueue();
  const auto exhausted = Enqueue(q, {.payload = {{"kind", "exhausted"}}, .max_retries = 0});
  const auto fatal = Enqueue(q, {.payload = {{"kind", "fatal"}}, .max_retries = 5});
  const auto detailed = Enqueue(q, {.payload = {{"kind", "detailed"}}, .max_retries = 0});
  const auto retried = Enqueue(q, {.payload = {{"kind", "retried"}}, .max_retries = 1});
  auto options = Defaults(q);
  options.concurrency = 4;
  Worker worker(Options(), options, [&](const JobContext& job) {
    const auto kind = job.payload().at("kind").as_string();
    if (kind == "fatal") return HandlerResult::NonRetryableFailure("malformed");
    if (kind == "detailed") {
      return HandlerResult::RetryableFailure("exit 3").WithDetails({{"exit_code", 3}});
    }
    if (kind == "retried") return HandlerResult::RetryableFailure("later", seconds(60));
    return HandlerResult::RetryableFailure("upstream 503");
  });
  std::mutex mu;
  std::map<std::string, std::pair<DeadReason, std::string>> deaths;
  std::map<std::string, int> retry_counts;
  worker.OnDeath([&](const sdk::ClaimedJob& job, const sdk::FailResult& r, const std::string& e) {
    EXPECT_EQ(r.status, JobStatus::kDeadletter);
    EXPECT_FALSE(r.will_retry);
    EXPECT_FALSE(r.scheduled_at);
    std::lock_guard lock(mu);
    deaths[job.id] = {r.dead_reason, e};
    retry_counts[job.id] = r.retry_count;
  });
  const auto before = WorkerRequests();
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] {
    std::lock_guard lock(mu);
    return deaths.size() == 3 && worker.stats().failed == 4;
  }));
  EXPECT_TRUE(worker.Stop().ok());
  auto after = WorkerRequests();
  EXPECT_EQ(after["{id}/fail"], before.at("{id}/fail"));  // details included, all as acks
  std::lock_guard lock(mu);
  EXPECT_EQ(deaths[exhausted],
            std::make_pair(DeadReason::kMaxRetriesExceeded, std::string("upstream 503")));
  EXPECT_EQ(deaths[fatal], std::make_pair(DeadReason::kNonRetryable, std::string("malformed")));
  EXPECT_EQ(deaths[detailed].first, DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ(deaths.count(retried), 0u);
  for (const auto& [id, retry_count] : retry_counts) {
    EXPECT_EQ(retry_count, client_->GetJob(id)->retry_count) << id;
  }
  // The details went in the ack and were stored as the fail route stores them.
  auto history = client_->History(detailed);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  const auto details = json::parse(history->back().details_json);
  EXPECT_EQ(details.at("attempt").at("exit_code"), 3);
  EXPECT_EQ(worker.stats().dead, 3);
  auto job = client_->GetJob(retried);
  EXPECT_EQ(job->status, JobStatus::kScheduled);
  EXPECT_EQ(job->retry_count, 1);
  EXPECT_EQ(client_->GetJob(fatal)->dead_reason, DeadReason::kNonRetryable);
}

// The claimer's long poll is parked (the queue is empty): a finished job's
// outcome does not wait for it, but goes at once in a POST /jobs/ack.
TEST_F(WorkerTest, AnOutcomeIsSentPromptlyWhileALongPollWaits) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  auto options = Defaults(q);
  options.concurrency = 2;
  options.claim_wait = seconds(20);
  std::atomic<bool> started{false}, finish{false};
  Worker worker(Options(), options, [&](const JobContext& job) {
    started = true;
    while (!finish && !job.token().WaitFor(milliseconds(10))) {
    }
    return HandlerResult::Success({{"done", true}});
  });
  ASSERT_TRUE(worker.Start().ok());
  ASSERT_TRUE(WaitUntil([&] { return started.load(); }));
  e2e::HttpClient observer = server_->Client();
  ASSERT_TRUE(e2e::WaitForParkedClaim(observer, q));  // for the free capacity
  const long long claims = Requests("/api/v1/jobs/claim");
  const long long acks = Requests("/api/v1/jobs/ack");
  const auto finished_at = std::chrono::steady_clock::now();
  finish = true;
  ASSERT_TRUE(WaitUntil([&] { return StatusOf(id) == JobStatus::kCompleted; }, seconds(5)));
  EXPECT_LT(std::chrono::steady_clock::now() - finished_at, seconds(2));
  EXPECT_EQ(Requests("/api/v1/jobs/ack"), acks + 1);
  EXPECT_EQ(Requests("/api/v1/jobs/claim"), claims);  // the long poll is still waiting
  EXPECT_EQ(worker.stats().completed, 1);
  EXPECT_TRUE(worker.Stop().ok());
}

// Prefetched jobs never started go back to pending at Stop(), with no retry
// charged, and their handler never runs.
TEST_F(WorkerTest, StopGivesPrefetchedJobsBackUnrunAndUncharged) {
  const auto q = NewQueue();
  const auto ids = EnqueueMany(q, 4);
  auto options = Defaults(q);
  options.concurrency = 2;
  options.prefetch = 2;
  options.grace_period = milliseconds(300);
  std::mutex mu;
  std::set<std::string> ran;
  Worker worker(Options(), options, [&](const JobContext& job) {
    {
      std::lock_guard lock(mu);
      ran.insert(job.id());
    }
    job.token().WaitFor(seconds(10));  // until Stop() gives up on it
    return HandlerResult::Success();
  });
  ASSERT_TRUE(worker.Start().ok());
  ASSERT_TRUE(WaitUntil([&] {
    std::lock_guard lock(mu);
    return ran.size() == 2 && worker.stats().claimed == 4;
  }));
  EXPECT_EQ(worker.running_jobs(), 2);
  EXPECT_TRUE(worker.Stop().ok());
  std::lock_guard lock(mu);
  EXPECT_EQ(ran.size(), 2u);
  for (const auto& id : ids) {
    auto job = client_->GetJob(id);
    EXPECT_EQ(job->status, JobStatus::kPending) << id;
    EXPECT_EQ(job->retry_count, 0) << id;
    EXPECT_EQ(job->attempts, 1) << id;
    EXPECT_THAT(History(id), Contains("released")) << id;
  }
  EXPECT_EQ(worker.stats().results_dropped, 2);  // the two cancelled after the grace period
}

// A prefetched job waits in the buffer longer than its lease: its lease is
// heartbeated like a running job's, so it is neither lost nor run twice.
TEST_F(WorkerTest, PrefetchedJobsAreHeartbeatedWhileTheyWait) {
  const auto q = NewQueue();
  const auto ids = EnqueueMany(q, 2);
  auto options = Defaults(q);
  options.concurrency = 1;
  options.prefetch = 1;
  options.lease = seconds(5);
  options.heartbeat_fraction = 1.0 / 10;  // every 500 ms
  std::atomic<int> runs{0};
  Worker worker(Options(), options, [&](const JobContext& job) {
    if (++runs == 1) job.token().WaitFor(milliseconds(6500));  // past the other's lease
    return HandlerResult::Success();
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return client_->Stats(q)->completed == 2; }, seconds(15)));
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(worker.stats().claimed, 2);
  EXPECT_EQ(worker.stats().leases_lost, 0);
  for (const auto& id : ids) {
    auto job = client_->GetJob(id);
    EXPECT_EQ(job->attempts, 1) << id;
    EXPECT_EQ(job->lease_expiries, 0) << id;
  }
}

// Prefetching pauses while handlers take a second or more: a buffered job
// would wait that long for a slot, out of its timeout_seconds. The first
// claim prefetches (nothing is measured yet); once handlers are known to be
// long, each job is claimed only when a slot is free for it.
TEST_F(WorkerTest, PrefetchPausesWhileHandlersAreLong) {
  const auto q = NewQueue();
  EnqueueMany(q, 6);
  auto options = Defaults(q);
  options.concurrency = 2;
  options.prefetch = 2;
  std::mutex mu;
  std::vector<std::pair<Instant, std::string>> starts;
  Worker worker(Options(), options, [&](const JobContext& job) {
    {
      std::lock_guard lock(mu);
      starts.emplace_back(std::chrono::time_point_cast<Micros>(std::chrono::system_clock::now()),
                          job.id());
    }
    job.token().WaitFor(milliseconds(1100));
    return HandlerResult::Success();
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] { return client_->Stats(q)->completed == 6; }, seconds(15)));
  EXPECT_TRUE(worker.Stop().ok());
  std::lock_guard lock(mu);
  ASSERT_EQ(starts.size(), 6u);
  std::sort(starts.begin(), starts.end());
  std::vector<Micros> waited;  // from the claim to the handler's start, by start
  for (const auto& [started, id] : starts)
    waited.push_back(started - *client_->GetJob(id)->started_at);
  EXPECT_GT(waited[2], milliseconds(900));  // prefetched by the first claim
  EXPECT_GT(waited[3], milliseconds(900));
  EXPECT_LT(waited[4], milliseconds(500));  // claimed for a free slot
  EXPECT_LT(waited[5], milliseconds(500));
}

// A result over the server's payload limit makes it refuse the whole request
// that carries it. The worker then sends each outcome of that request on its
// own, so only the oversized one is lost.
TEST_F(WorkerTest, ARefusedBatchCostsOnlyTheBadAck) {
  const auto q = NewQueue();
  const auto ids = EnqueueMany(q, 6);
  auto options = Defaults(q);
  options.concurrency = 6;
  options.error_backoff = milliseconds(100);
  std::atomic<bool> first{true};
  std::mutex mu;
  std::vector<Status> errors;
  Worker worker(Options(), options, [&](const JobContext&) {
    if (first.exchange(false)) {
      return HandlerResult::Success({{"blob", std::string(1100 * 1024, 'x')}});
    }
    return HandlerResult::Success();
  });
  worker.OnError([&](const Status& s) {
    std::lock_guard lock(mu);
    errors.push_back(s);
  });
  ASSERT_TRUE(worker.Start().ok());
  EXPECT_TRUE(WaitUntil([&] {
    auto s = worker.stats();
    return s.completed == 5 && s.results_dropped == 1;
  }));
  EXPECT_TRUE(worker.Stop().ok());
  EXPECT_EQ(client_->Stats(q)->completed, 5);
  std::lock_guard lock(mu);
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors.front().code(), ErrorCode::kPayloadTooLarge);
}

TEST_F(WorkerTest, StartFailsWhenTheServerIsUnreachable) {
  Worker worker(ClientOptions{.server_url = "http://127.0.0.1:1"}, Defaults("q"),
                [](const JobContext&) { return HandlerResult::Success(); });
  EXPECT_EQ(worker.Start().code(), ErrorCode::kUnavailable);
}

}  // namespace
}  // namespace redrive::sdk_test
