// The whole job lifecycle over HTTP against the real binary: enqueue, claim,
// heartbeat, complete, fail with backoff, dead-letter, redrive, leases and
// fencing, deadlines, long-poll, idempotency, bulk, DLQ tools, pause/resume.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <set>
#include <thread>

#include "core/time_format.h"
#include "e2e/support/api_fixture.h"
#include "e2e/support/long_polls.h"
#include "e2e/support/wait.h"

namespace redrive::e2e {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;

std::string Str(const json::value& v) { return std::string(v.as_string()); }

std::string IsoIn(milliseconds d) {
  return FormatTime(std::chrono::time_point_cast<Micros>(std::chrono::system_clock::now()) + d);
}

class LifecycleTest : public ApiTest {};

TEST_F(LifecycleTest, EnqueueClaimHeartbeatComplete) {
  const auto q = NewQueue();
  const auto id =
      Enqueue(q, {{"payload", {{"to", "a@b.c"}}}, {"priority", 5}, {"tags", {{"tenant", "acme"}}}});
  auto jobs = Claim(q, "w1");
  ASSERT_EQ(jobs.size(), 1u);
  auto& job = jobs[0].as_object();
  EXPECT_EQ(Str(job.at("id")), id);
  EXPECT_EQ(job.at("payload").at("to"), "a@b.c");
  EXPECT_EQ(job.at("attempts"), 1);
  const auto lease = Str(job.at("lease_id"));

  auto hb = Post("/jobs/" + id + "/heartbeat",
                 {{"worker_id", "w1"}, {"lease_id", lease}, {"lease_duration_secs", 60}});
  ASSERT_EQ(hb.status, 200) << hb.raw.body;
  EXPECT_EQ(hb.body.at("success"), true);
  EXPECT_EQ(MillisBetween(job.at("lease_expires_at"), hb.body.at("lease_expires_at")) >= 29000,
            true);

  auto done = Post("/jobs/" + id + "/complete",
                   {{"worker_id", "w1"}, {"lease_id", lease}, {"result", {{"sent", true}}}});
  ASSERT_EQ(done.status, 200) << done.raw.body;
  auto stored = Job(id);
  EXPECT_EQ(stored.at("status"), "completed");
  EXPECT_EQ(stored.at("result").at("sent"), true);
  EXPECT_EQ(stored.at("tags").at("tenant"), "acme");
  EXPECT_THAT(HistoryTypes(id), ElementsAre("created", "processing", "completed"));

  auto again = Post("/jobs/" + id + "/complete", {{"worker_id", "w1"}, {"lease_id", lease}});
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.body.at("code"), "CONFLICT");
}

TEST_F(LifecycleTest, FailuresFollowTheBackoffScheduleThenDeadLetterAndRedrive) {
  const auto q = NewQueue();
  const auto id = Enqueue(
      q, {{"max_retries", 2}, {"backoff", {{"base_ms", 300}, {"max_ms", 1000}, {"jitter_ms", 0}}}});
  for (int attempt = 1; attempt <= 2; ++attempt) {
    auto jobs = Claim(q, "w1", 1, /*wait_ms=*/3000);
    ASSERT_EQ(jobs.size(), 1u) << "attempt " << attempt;
    auto fail =
        Post("/jobs/" + id + "/fail",
             {{"worker_id", "w1"}, {"lease_id", jobs[0].at("lease_id")}, {"error", "smtp down"}});
    ASSERT_EQ(fail.status, 200) << fail.raw.body;
    EXPECT_EQ(fail.body.at("will_retry"), true);
    EXPECT_EQ(fail.body.at("status"), "scheduled");
    EXPECT_EQ(fail.body.at("retry_count"), attempt);
    auto stored = Job(id);
    // delay(n) = base · 2^(n−1): 300 ms, then 600 ms (±1 ms of rounding).
    const long long expected = 300LL << (attempt - 1);
    EXPECT_NEAR(MillisBetween(stored.at("updated_at"), stored.at("scheduled_at")), expected, 1);
    EXPECT_EQ(stored.at("last_error"), "smtp down");
    // Not claimable during the backoff.
    EXPECT_TRUE(Claim(q, "w1").empty());
  }
  auto jobs = Claim(q, "w1", 1, 3000);
  ASSERT_EQ(jobs.size(), 1u);
  auto fail =
      Post("/jobs/" + id + "/fail",
           {{"worker_id", "w1"}, {"lease_id", jobs[0].at("lease_id")}, {"error", "still down"}});
  ASSERT_EQ(fail.status, 200);
  EXPECT_EQ(fail.body.at("will_retry"), false);
  EXPECT_EQ(fail.body.at("status"), "deadletter");
  EXPECT_EQ(fail.body.at("dead_reason"), "max_retries_exceeded");

  auto dlq = Get("/jobs/dlq?queue_name=" + q);
  ASSERT_EQ(dlq.status, 200);
  ASSERT_EQ(dlq.body.as_array().size(), 1u);
  EXPECT_EQ(Str(dlq.body.at(0).at("id")), id);
  EXPECT_EQ(dlq.body.at(0).at("last_error"), "still down");

  auto retried = Post("/jobs/" + id + "/retry", json::object{});
  ASSERT_EQ(retried.status, 200) << retried.raw.body;
  EXPECT_EQ(retried.body.at("status"), "pending");
  EXPECT_EQ(retried.body.at("retry_count"), 0);
  EXPECT_TRUE(retried.body.at("dead_reason").is_null());
  jobs = Claim(q, "w2");
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_EQ(
      Post("/jobs/" + id + "/complete", {{"worker_id", "w2"}, {"lease_id", jobs[0].at("lease_id")}})
          .status,
      200);
  EXPECT_THAT(HistoryTypes(id), ElementsAre("created", "processing", "retry_scheduled",
                                            "processing", "retry_scheduled", "processing",
                                            "deadlettered", "retried", "processing", "completed"));
}

TEST_F(LifecycleTest, ExpiredLeaseIsRedeliveredAndTheStaleWorkerIsFenced) {
  const auto q = NewQueue();
  ASSERT_EQ(Put("/queues/" + q + "/config",
                {{"backoff", {{"base_ms", 0}, {"max_ms", 0}, {"jitter_ms", 0}}}})
                .status,
            200);
  const auto id = Enqueue(q);
  auto first = Claim(q, "w1", 1, 0, /*lease_secs=*/5);
  ASSERT_EQ(first.size(), 1u);
  // The lease runs out after 5 s; a long-poll claim parked before then gets
  // the job back as soon as the reaper sees it.
  auto second = Claim(q, "w2", 1, /*wait_ms=*/8000);
  ASSERT_EQ(second.size(), 1u);
  EXPECT_NE(second[0].at("lease_id"), first[0].at("lease_id"));
  EXPECT_EQ(second[0].at("retry_count"), 1);

  auto late = Post("/jobs/" + id + "/complete",
                   {{"worker_id", "w1"}, {"lease_id", first[0].at("lease_id")}});
  EXPECT_EQ(late.status, 409);
  EXPECT_EQ(late.body.at("code"), "LEASE_EXPIRED");
  auto hb = Post(
      "/jobs/" + id + "/heartbeat",
      {{"worker_id", "w1"}, {"lease_id", first[0].at("lease_id")}, {"lease_duration_secs", 30}});
  EXPECT_EQ(hb.body.at("code"), "LEASE_EXPIRED");
  // The current holder presenting another worker's id is refused too.
  auto foreign = Post("/jobs/" + id + "/complete",
                      {{"worker_id", "w1"}, {"lease_id", second[0].at("lease_id")}});
  EXPECT_EQ(foreign.body.at("code"), "LEASE_EXPIRED");
  ASSERT_EQ(Post("/jobs/" + id + "/complete",
                 {{"worker_id", "w2"}, {"lease_id", second[0].at("lease_id")}})
                .status,
            200);
  auto stored = Job(id);
  EXPECT_EQ(stored.at("lease_expiries"), 1);
  EXPECT_EQ(stored.at("attempts"), 2);
  EXPECT_THAT(HistoryTypes(id),
              ElementsAre("created", "processing", "lease_expired", "processing", "completed"));
}

TEST_F(LifecycleTest, DeadlinePassedBeforeRunSendsJobToDlq) {
  const auto q = NewQueue();
  const auto id = Enqueue(
      q, {{"scheduled_at", IsoIn(milliseconds(5000))}, {"expires_at", IsoIn(milliseconds(600))}});
  EXPECT_EQ(Job(id).at("status"), "scheduled");
  EXPECT_TRUE(WaitUntil([&] { return Job(id).at("status") == "deadletter"; }, seconds(5)));
  auto stored = Job(id);
  EXPECT_EQ(stored.at("status"), "deadletter");
  EXPECT_EQ(stored.at("dead_reason"), "expired");
  auto expired = Get("/jobs/dlq?queue_name=" + q + "&dead_reason=expired");
  ASSERT_EQ(expired.body.as_array().size(), 1u);
  auto past = Post("/jobs",
                   {{"queue_name", q}, {"payload", 1}, {"expires_at", IsoIn(milliseconds(-1000))}});
  EXPECT_EQ(past.status, 400);
  EXPECT_EQ(past.body.at("code"), "VALIDATION_ERROR");
}

TEST_F(LifecycleTest, LongPollWakesWithinMillisecondsOfAnEnqueue) {
  const auto q = NewQueue();
  auto waiter = std::async(std::launch::async, [&] {
    HttpClient c = server_->Client();
    return c.JsonRequest("POST", "/api/v1/jobs/claim",
                         json::object{{"queue_name", q}, {"worker_id", "w"}, {"wait_ms", 10000}});
  });
  HttpClient observer = server_->Client();
  ASSERT_TRUE(WaitForParkedClaim(observer, q));
  ASSERT_EQ(waiter.wait_for(milliseconds(0)), std::future_status::timeout);
  const auto t0 = std::chrono::steady_clock::now();
  const auto id = Enqueue(q);
  auto r = waiter.get();
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_EQ(r.status, 200) << r.raw.body;
  ASSERT_EQ(r.body.at("jobs").as_array().size(), 1u);
  EXPECT_EQ(Str(r.body.at("jobs").at(0).at("id")), id);
  EXPECT_LT(waited, milliseconds(1000));
}

TEST_F(LifecycleTest, LongPollReturnsEmptyAfterItsWait) {
  const auto q = NewQueue();
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(Claim(q, "w", 1, 400).empty());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, milliseconds(390));
}

TEST_F(LifecycleTest, IdempotentEnqueueReturnsTheExistingJob) {
  const auto q = NewQueue();
  auto a = Post("/jobs", {{"queue_name", q}, {"payload", 1}, {"idempotency_key", "order-" + q}});
  ASSERT_EQ(a.status, 201);
  EXPECT_EQ(a.body.at("created"), true);
  auto b = Post("/jobs", {{"queue_name", q}, {"payload", 2}, {"idempotency_key", "order-" + q}});
  ASSERT_EQ(b.status, 200);
  EXPECT_EQ(b.body.at("created"), false);
  EXPECT_EQ(b.body.at("id"), a.body.at("id"));
}

// Enqueues sent at once (which the server may run together as one op):
// those with one idempotency key make one job, answered 201 once and 200
// with its id to every other; those without a key make a job each.
TEST_F(LifecycleTest, ConcurrentEnqueuesOfOneKeyMakeOneJobAndTheOthersOneEach) {
  const auto q = NewQueue();
  constexpr int kSenders = 8;
  constexpr int kEach = 4;
  std::mutex mu;
  std::vector<std::pair<int, std::string>> keyed;  // status, id
  std::set<std::string> unkeyed;
  std::vector<std::thread> senders;
  for (int t = 0; t < kSenders; ++t) {
    senders.emplace_back([&, t] {
      HttpClient c = server_->Client();
      for (int i = 0; i < kEach; ++i) {
        json::object body{{"queue_name", q}, {"payload", t * kEach + i}};
        if (i % 2 == 0) body["idempotency_key"] = "one-" + q;
        auto r = c.JsonRequest("POST", "/api/v1/jobs", body);
        std::lock_guard lock(mu);
        if (i % 2 == 0) {
          keyed.emplace_back(r.status,
                             r.status < 300 ? std::string(r.body.at("id").as_string()) : "");
        } else if (r.status == 201) {
          unkeyed.insert(std::string(r.body.at("id").as_string()));
        }
      }
    });
  }
  for (std::thread& t : senders) t.join();
  ASSERT_EQ(keyed.size(), size_t{kSenders * kEach / 2});
  int created = 0;
  for (const auto& [status, id] : keyed) {
    EXPECT_TRUE(status == 201 || status == 200) << status;
    created += status == 201 ? 1 : 0;
    EXPECT_EQ(id, keyed.front().second);
  }
  EXPECT_EQ(created, 1);
  EXPECT_EQ(unkeyed.size(), size_t{kSenders * kEach / 2});
  EXPECT_FALSE(unkeyed.contains(keyed.front().second));
  auto stats = Get("/jobs/stats?queue_name=" + q);
  ASSERT_EQ(stats.status, 200) << stats.raw.body;
  EXPECT_EQ(stats.body.at("pending"), kSenders * kEach / 2 + 1);
}

TEST_F(LifecycleTest, BulkEnqueueReportsInvalidItemsAndInsertsTheRest) {
  const auto q = NewQueue();
  auto r = Post("/jobs/bulk",
                {{"queue_name", q},
                 {"jobs", json::array{json::object{{"payload", 1}}, json::object{{"priority", 1}},
                                      json::object{{"payload", 3}, {"priority", 500}},
                                      json::object{{"payload", 4}, {"priority", 7}}}},
                 {"default_max_retries", 1}});
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r.body.at("total"), 4);
  EXPECT_EQ(r.body.at("success_count"), 2);
  EXPECT_EQ(r.body.at("failure_count"), 2);
  auto& failed = r.body.at("failed").as_array();
  ASSERT_EQ(failed.size(), 2u);
  EXPECT_EQ(failed[0].at("index"), 1);
  EXPECT_EQ(failed[1].at("index"), 2);
  auto& ok = r.body.at("succeeded").as_array();
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[1].at("index"), 3);
  auto job = Job(Str(ok[1].at("job_id")));
  EXPECT_EQ(job.at("priority"), 7);
  EXPECT_EQ(job.at("max_retries"), 1);
  auto stats = Get("/jobs/stats?queue_name=" + q);
  EXPECT_EQ(stats.body.at("pending"), 2);
}

TEST_F(LifecycleTest, BulkItemsTheEngineRefusesAreReportedFailed) {
  const auto q = NewQueue();
  auto r = Post("/jobs/bulk",
                {{"queue_name", q},
                 {"jobs", json::array{json::object{{"payload", 1}},
                                      json::object{{"payload", 2},
                                                   {"expires_at", IsoIn(milliseconds(-5000))}}}}});
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r.body.at("success_count"), 1);
  EXPECT_EQ(r.body.at("failure_count"), 1);
  ASSERT_EQ(r.body.at("failed").as_array().size(), 1u);
  EXPECT_EQ(r.body.at("failed").at(0).at("index"), 1);
  for (const auto& s : r.body.at("succeeded").as_array())
    EXPECT_FALSE(s.at("job_id").as_string().empty());
  EXPECT_EQ(Get("/jobs/stats?queue_name=" + q).body.at("total"), 1);
}

TEST_F(LifecycleTest, DeeplyNestedPayloadsComeBackAsJson) {
  const auto q = NewQueue();
  json::value nested = 1;
  for (int i = 0; i < 60; ++i) nested = json::array{nested};
  const auto id = Enqueue(q, {{"payload", nested}});
  auto job = Job(id);
  EXPECT_TRUE(job.at("payload").is_array()) << "payload came back as " << job.at("payload").kind();
  EXPECT_EQ(job.at("payload"), nested);
}

TEST_F(LifecycleTest, DlqFiltersDryRunAndThrottledRedrive) {
  const auto q = NewQueue();
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(Enqueue(q, {{"max_retries", i < 3 ? 5 : 0}}));
    auto jobs = Claim(q, "w");
    ASSERT_EQ(jobs.size(), 1u);
    json::object fail{
        {"worker_id", "w"}, {"lease_id", jobs[0].at("lease_id")}, {"error", "bad input"}};
    if (i < 3) fail["no_retry"] = true;
    ASSERT_EQ(Post("/jobs/" + ids.back() + "/fail", fail).status, 200);
  }
  auto non_retryable = Get("/jobs/dlq?queue_name=" + q + "&dead_reason=non_retryable");
  ASSERT_EQ(non_retryable.status, 200);
  EXPECT_EQ(non_retryable.body.as_array().size(), 3u);
  auto exceeded = Get("/jobs/dlq?queue_name=" + q + "&dead_reason=max_retries_exceeded");
  ASSERT_EQ(exceeded.body.as_array().size(), 1u);
  EXPECT_EQ(Str(exceeded.body.at(0).at("id")), ids[3]);
  auto by_status = Get("/jobs?queue_name=" + q + "&status=deadletter");
  EXPECT_EQ(by_status.body.as_array().size(), 4u);

  auto dry = Post("/jobs/dlq/retry", {{"queue_name", q}, {"dry_run", true}});
  ASSERT_EQ(dry.status, 200) << dry.raw.body;
  EXPECT_EQ(dry.body.at("matched_count"), 4);
  EXPECT_EQ(dry.body.at("dry_run"), true);
  EXPECT_EQ(Job(ids[0]).at("status"), "deadletter");

  auto redrive =
      Post("/jobs/dlq/retry",
           {{"queue_name", q}, {"dead_reason", "non_retryable"}, {"rate_per_second", 0.1}});
  ASSERT_EQ(redrive.status, 200) << redrive.raw.body;
  EXPECT_EQ(redrive.body.at("retried_count"), 3);
  auto j0 = Job(ids[0]), j1 = Job(ids[1]), j2 = Job(ids[2]);
  EXPECT_EQ(j0.at("status"), "pending");
  // 10 s apart: still scheduled when read back, however slow the machine.
  EXPECT_EQ(j1.at("status"), "scheduled");
  EXPECT_NEAR(MillisBetween(j0.at("scheduled_at"), j1.at("scheduled_at")), 10000, 2);
  EXPECT_NEAR(MillisBetween(j0.at("scheduled_at"), j2.at("scheduled_at")), 20000, 2);
  EXPECT_EQ(Job(ids[3]).at("status"), "deadletter");
  EXPECT_EQ(HistoryTypes(ids[0]).back(), "retried");
}

TEST_F(LifecycleTest, PurgeNeedsConfirmAndDeletesDeadJobs) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {{"max_retries", 0}});
  auto jobs = Claim(q, "w");
  ASSERT_EQ(Post("/jobs/" + id + "/fail",
                 {{"worker_id", "w"}, {"lease_id", jobs[0].at("lease_id")}, {"error", "x"}})
                .status,
            200);
  auto no_confirm = Post("/jobs/dlq/purge", {{"queue_name", q}});
  EXPECT_EQ(no_confirm.status, 400);
  EXPECT_EQ(no_confirm.body.at("code"), "BAD_REQUEST");
  auto not_true = Post("/jobs/dlq/purge", {{"queue_name", q}, {"confirm", "yes"}});
  EXPECT_EQ(not_true.status, 400);
  EXPECT_EQ(Job(id).at("status"), "deadletter");
  auto purge = Post("/jobs/dlq/purge", {{"queue_name", q}, {"confirm", true}});
  ASSERT_EQ(purge.status, 200) << purge.raw.body;
  EXPECT_EQ(purge.body.at("purged_count"), 1);
  EXPECT_EQ(Get("/jobs/" + id).status, 404);
}

TEST_F(LifecycleTest, PausedQueueHandsOutNothingAndResumeWakesWaiters) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  ASSERT_EQ(Post("/queues/" + q + "/pause", {{"reason", "deploy"}}).status, 200);
  EXPECT_TRUE(Claim(q, "w").empty());
  auto queue = Get("/queues/" + q);
  EXPECT_EQ(queue.body.at("paused"), true);
  auto waiter = std::async(std::launch::async, [&] {
    HttpClient c = server_->Client();
    return c.JsonRequest("POST", "/api/v1/jobs/claim",
                         json::object{{"queue_name", q}, {"worker_id", "w"}, {"wait_ms", 10000}});
  });
  HttpClient observer = server_->Client();
  ASSERT_TRUE(WaitForParkedClaim(observer, q));
  ASSERT_EQ(Post("/queues/" + q + "/resume", json::object{}).status, 200);
  auto r = waiter.get();
  ASSERT_EQ(r.body.at("jobs").as_array().size(), 1u);
  EXPECT_EQ(Str(r.body.at("jobs").at(0).at("id")), id);
}

TEST_F(LifecycleTest, CancelFencesTheHolderAndRetryNeedsADeadJob) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  EXPECT_EQ(Post("/jobs/" + id + "/retry", json::object{}).status, 409);
  auto jobs = Claim(q, "w");
  ASSERT_EQ(Delete("/jobs/" + id).status, 204);
  auto late =
      Post("/jobs/" + id + "/complete", {{"worker_id", "w"}, {"lease_id", jobs[0].at("lease_id")}});
  EXPECT_EQ(late.body.at("code"), "LEASE_EXPIRED");
  EXPECT_EQ(Job(id).at("status"), "cancelled");
  EXPECT_EQ(Delete("/jobs/" + id).status, 409);
}

TEST_F(LifecycleTest, PayloadRepairThenRetry) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {{"max_retries", 0}, {"payload", {{"amount", "12,50"}}}});
  EXPECT_EQ(Put("/jobs/" + id + "/payload", {{"payload", {{"amount", 1250}}}}).status, 409);
  auto jobs = Claim(q, "w");
  ASSERT_EQ(
      Post("/jobs/" + id + "/fail",
           {{"worker_id", "w"}, {"lease_id", jobs[0].at("lease_id")}, {"error", "bad amount"}})
          .status,
      200);
  auto fixed = Put("/jobs/" + id + "/payload", {{"payload", {{"amount", 1250}}}});
  ASSERT_EQ(fixed.status, 200) << fixed.raw.body;
  ASSERT_EQ(Post("/jobs/" + id + "/retry", json::object{}).status, 200);
  jobs = Claim(q, "w");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].at("payload").at("amount"), 1250);
}

TEST_F(LifecycleTest, AcksRideOnClaimAndBatchAck) {
  const auto q = NewQueue();
  for (int i = 0; i < 3; ++i) Enqueue(q);
  auto jobs = Claim(q, "w", 3);
  ASSERT_EQ(jobs.size(), 3u);
  auto r = Post(
      "/jobs/claim",
      {{"queue_name", q},
       {"worker_id", "w"},
       {"limit", 10},
       {"acks",
        json::array{json::object{{"id", jobs[0].at("id")}, {"lease_id", jobs[0].at("lease_id")}},
                    json::object{{"id", jobs[1].at("id")}, {"lease_id", "not-the-lease"}}}}});
  ASSERT_EQ(r.status, 200) << r.raw.body;
  auto& results = r.body.at("results").as_array();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].at("success"), true);
  EXPECT_EQ(results[1].at("success"), false);
  EXPECT_EQ(results[1].at("code"), "LEASE_EXPIRED");
  auto ack =
      Post("/jobs/ack", {{"worker_id", "w"},
                         {"acks", json::array{json::object{{"id", jobs[1].at("id")},
                                                           {"lease_id", jobs[1].at("lease_id")}},
                                              json::object{{"id", jobs[2].at("id")},
                                                           {"lease_id", jobs[2].at("lease_id")},
                                                           {"error", "x"}}}}});
  ASSERT_EQ(ack.status, 200) << ack.raw.body;
  EXPECT_EQ(ack.body.at("results").at(0).at("success"), true);
  EXPECT_EQ(ack.body.at("results").at(1).at("will_retry"), true);
  auto stats = Get("/jobs/stats?queue_name=" + q);
  EXPECT_EQ(stats.body.at("completed"), 2);
}

TEST_F(LifecycleTest, DeregisterReleasesJobsWithoutChargingARetry) {
  const auto q = NewQueue();
  auto reg = Post("/workers/register", {{"queue_name", q}, {"hostname", "box-1"}});
  ASSERT_EQ(reg.status, 201) << reg.raw.body;
  const auto worker = Str(reg.body.at("id"));
  EXPECT_EQ(reg.body.at("lease_duration_secs"), 30);
  const auto id = Enqueue(q);
  ASSERT_EQ(Claim(q, worker).size(), 1u);
  ASSERT_EQ(Post("/workers/" + worker + "/heartbeat", {{"current_jobs", 1}}).status, 200);
  ASSERT_EQ(Post("/workers/" + worker + "/deregister", json::object{}).status, 204);
  auto job = Job(id);
  EXPECT_EQ(job.at("status"), "pending");
  EXPECT_EQ(job.at("retry_count"), 0);
  EXPECT_EQ(HistoryTypes(id).back(), "released");
  auto workers = Get("/workers");
  ASSERT_EQ(workers.status, 200);
}

TEST_F(LifecycleTest, QueuesShowCountsAndConfig) {
  const auto q = NewQueue();
  Enqueue(q);
  Enqueue(q, {{"scheduled_at", IsoIn(milliseconds(60000))}});
  auto cfg = Put("/queues/" + q + "/config",
                 {{"max_retries", 7}, {"retention", {{"completed_seconds", 3600}}}});
  ASSERT_EQ(cfg.status, 200) << cfg.raw.body;
  EXPECT_EQ(cfg.body.at("max_retries"), 7);
  auto queue = Get("/queues/" + q);
  ASSERT_EQ(queue.status, 200);
  EXPECT_EQ(queue.body.at("counts").at("pending"), 1);
  EXPECT_EQ(queue.body.at("counts").at("scheduled"), 1);
  EXPECT_EQ(Job(Enqueue(q)).at("max_retries"), 7);
  EXPECT_EQ(Get("/queues/no-such-queue-" + q).status, 404);
  auto all = Get("/queues");
  bool found = false;
  for (const auto& v : all.body.as_array()) found = found || v.at("queue_name") == q.c_str();
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace redrive::e2e
