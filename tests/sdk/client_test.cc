// redrive::Client against the real server: every kind of call, and errors as
// values carrying the server's code and field.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <future>
#include <stop_token>

#include "sdk/support/sdk_fixture.h"

namespace redrive::sdk_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace json = boost::json;

class ClientTest : public SdkTest {
 protected:
  // Claims exactly one job of `queue` as `worker`.
  sdk::ClaimedJob ClaimOne(const std::string& queue, const std::string& worker,
                           int lease_secs = 30) {
    auto r = client_->Claim(
        {.queue_name = queue, .worker_id = worker, .lease_duration_secs = lease_secs});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r.ok() ? r->jobs.size() : 0u, 1u);
    return r.ok() && !r->jobs.empty() ? r->jobs[0] : sdk::ClaimedJob{};
  }
};

TEST_F(ClientTest, EnqueueGetListHistoryAndStats) {
  const auto q = NewQueue();
  auto created = client_->Enqueue({.queue_name = q,
                                   .payload = {{"to", "ada"}},
                                   .priority = 5,
                                   .tags = {{"tenant", "acme"}},
                                   .idempotency_key = q + "-key"});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_TRUE(created->created);
  auto again = client_->Enqueue({.queue_name = q, .payload = 1, .idempotency_key = q + "-key"});
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->id, created->id);

  auto job = client_->GetJob(created->id);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->queue_name, q);
  EXPECT_EQ(job->status, JobStatus::kPending);
  EXPECT_EQ(job->priority, 5);
  EXPECT_EQ(sdk::PayloadOf(*job), (json::value{{"to", "ada"}}));
  EXPECT_EQ(job->tags.at("tenant"), "acme");

  auto list = client_->ListJobs({.queue_name = q, .status = JobStatus::kPending});
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_EQ((*list)[0].id, created->id);

  auto claimed = ClaimOne(q, "w1");
  EXPECT_EQ(claimed.payload, (json::value{{"to", "ada"}}));
  ASSERT_TRUE(client_->Complete(claimed.id, "w1", claimed.lease_id, {{"ok", true}}).ok());

  auto history = client_->History(created->id);
  ASSERT_TRUE(history.ok());
  std::vector<std::string> types;
  for (const auto& e : *history) types.push_back(e.event_type);
  EXPECT_THAT(types, ElementsAre("created", "processing", "completed"));

  auto statuses = client_->JobStatuses({created->id, "nope"});
  ASSERT_TRUE(statuses.ok());
  ASSERT_EQ(statuses->size(), 1u);
  EXPECT_EQ((*statuses)[0].status, JobStatus::kCompleted);

  auto stats = client_->Stats(q);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->completed, 1);
  EXPECT_EQ(stats->total(), 1);
  auto done = client_->GetJob(created->id);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(sdk::ResultOf(*done), (json::value{{"ok", true}}));
}

TEST_F(ClientTest, BulkEnqueueReportsFailedItemsWithTheirField) {
  const auto q = NewQueue();
  auto r = client_->EnqueueBulk(
      {.queue_name = q,
       .jobs = {{.payload = {{"i", 0}}}, {.payload = nullptr}, {.payload = 2, .priority = 500}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total, 3);
  ASSERT_EQ(r->succeeded.size(), 1u);
  ASSERT_EQ(r->failed.size(), 2u);
  EXPECT_EQ(r->failed[0].index, 1);
  EXPECT_EQ(r->failed[0].error.code(), ErrorCode::kValidation);
  EXPECT_EQ(r->failed[0].error.field(), "jobs[1].payload");
  EXPECT_EQ(r->failed[1].error.field(), "jobs[2].priority");
}

// Spooled's completion_webhook travels on an enqueue and a bulk item, comes
// back on the job, and a URL the server refuses names the field.
TEST_F(ClientTest, CompletionWebhookIsSentAndReadBack) {
  const auto q = NewQueue();
  auto one = client_->Enqueue(
      {.queue_name = q, .payload = 1, .completion_webhook = "https://app.example.com/done"});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(client_->GetJob(one->id)->completion_webhook, "https://app.example.com/done");
  auto bulk = client_->EnqueueBulk(
      {.queue_name = q,
       .jobs = {{.payload = 2, .completion_webhook = "https://app.example.com/b"},
                {.payload = 3, .completion_webhook = "ftp://app.example.com/"}}});
  ASSERT_TRUE(bulk.ok()) << bulk.status().ToString();
  ASSERT_EQ(bulk->succeeded.size(), 1u);
  EXPECT_EQ(client_->GetJob(bulk->succeeded[0].job_id)->completion_webhook,
            "https://app.example.com/b");
  ASSERT_EQ(bulk->failed.size(), 1u);
  EXPECT_EQ(bulk->failed[0].error.field(), "jobs[1].completion_webhook");
}

TEST_F(ClientTest, ErrorsCarryTheServersCodeMessageAndField) {
  auto missing = client_->GetJob("no-such-job");
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("no-such-job"));

  auto invalid = client_->Enqueue({.queue_name = NewQueue(), .payload = 1, .priority = 101});
  EXPECT_EQ(invalid.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(invalid.status().field(), "priority");

  auto unconfirmed = client_->PurgeDlq({});
  EXPECT_EQ(unconfirmed.status().code(), ErrorCode::kBadRequest);
}

TEST_F(ClientTest, LeaseExpiredIsToldApartFromConflict) {
  const auto q = NewQueue();
  Enqueue(q);
  auto job = ClaimOne(q, "w1");
  // A wrong lease: LEASE_EXPIRED.
  auto stale = client_->Heartbeat(job.id, "w1", "not-the-lease", 30);
  EXPECT_EQ(stale.status().code(), ErrorCode::kLeaseExpired);
  auto hb = client_->Heartbeat(job.id, "w1", job.lease_id, 30);
  ASSERT_TRUE(hb.ok()) << hb.status().ToString();
  ASSERT_TRUE(client_->Complete(job.id, "w1", job.lease_id).ok());
  // A second complete: CONFLICT.
  EXPECT_EQ(client_->Complete(job.id, "w1", job.lease_id).code(), ErrorCode::kConflict);
  // Cancelling a finished job: CONFLICT.
  EXPECT_EQ(client_->Cancel(job.id).code(), ErrorCode::kConflict);
}

TEST_F(ClientTest, FailRetryDlqRepairAndRedrive) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {.max_retries = 1, .backoff = NoBackoff()});
  auto first = ClaimOne(q, "w1");
  auto r1 = client_->Fail(id, "w1", first.lease_id, "boom",
                          {.retry_after = std::chrono::milliseconds(0)});
  ASSERT_TRUE(r1.ok()) << r1.status().ToString();
  EXPECT_TRUE(r1->will_retry);
  EXPECT_EQ(r1->retry_count, 1);
  auto second = ClaimOne(q, "w1");
  auto r2 = client_->Fail(id, "w1", second.lease_id, "boom again");
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(r2->will_retry);
  EXPECT_EQ(r2->status, JobStatus::kDeadletter);
  EXPECT_EQ(r2->dead_reason, DeadReason::kMaxRetriesExceeded);

  auto dlq = client_->ListDlq({.queue_name = q});
  ASSERT_TRUE(dlq.ok());
  ASSERT_EQ(dlq->size(), 1u);
  EXPECT_EQ((*dlq)[0].last_error, "boom again");

  auto repaired = client_->RepairPayload(id, {{"fixed", true}});
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_EQ(sdk::PayloadOf(*repaired), (json::value{{"fixed", true}}));

  auto dry = client_->RetryDlq({.queue_name = q, .dry_run = true});
  ASSERT_TRUE(dry.ok());
  EXPECT_TRUE(dry->dry_run);
  EXPECT_EQ(dry->matched_count, 1);
  auto redriven = client_->RetryDlq({.queue_name = q});
  ASSERT_TRUE(redriven.ok());
  EXPECT_THAT(redriven->retried_jobs, ElementsAre(id));
  auto job = client_->GetJob(id);
  EXPECT_EQ(job->status, JobStatus::kPending);
  EXPECT_EQ(job->retry_count, 0);

  // Retry of a job that is not dead: CONFLICT. Priority and cancel work.
  EXPECT_EQ(client_->Retry(id).status().code(), ErrorCode::kConflict);
  auto prio = client_->SetPriority(id, 42);
  ASSERT_TRUE(prio.ok());
  EXPECT_EQ(prio->new_priority, 42);
  ASSERT_TRUE(client_->Cancel(id).ok());
  auto retried = client_->Retry(id);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->status, JobStatus::kPending);
}

TEST_F(ClientTest, NonRetryableFailureAndPurge) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  auto job = ClaimOne(q, "w1");
  auto r = client_->Fail(id, "w1", job.lease_id, "bad input", {.no_retry = true});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->dead_reason, DeadReason::kNonRetryable);
  auto purged = client_->PurgeDlq({.confirm = true, .queue_name = q});
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(*purged, 1);
  EXPECT_EQ(client_->GetJob(id).status().code(), ErrorCode::kNotFound);
}

TEST_F(ClientTest, DlqSummaryAndOneClassRedriveAndPurge) {
  const auto q = NewQueue();
  auto kill = [&](const std::string& error) {
    const auto id = Enqueue(q, {.max_retries = 0});
    auto job = ClaimOne(q, "w1");
    EXPECT_TRUE(client_->Fail(id, "w1", job.lease_id, error).ok());
    return id;
  };
  const auto t1 = kill("gateway timeout"), t2 = kill("gateway timeout");
  const auto card = kill("invalid card");

  auto groups = client_->DlqSummary({.queue_name = q});
  ASSERT_TRUE(groups.ok()) << groups.status().ToString();
  ASSERT_EQ(groups->size(), 2u);
  EXPECT_EQ((*groups)[0].queue_name, q);
  EXPECT_EQ((*groups)[0].dead_reason, DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ((*groups)[0].error, "gateway timeout");
  EXPECT_EQ((*groups)[0].count, 2);
  EXPECT_LE((*groups)[0].oldest_deadlettered_at, (*groups)[0].newest_deadlettered_at);
  EXPECT_EQ((*groups)[1].error, "invalid card");
  EXPECT_EQ(client_->DlqSummary({.queue_name = q, .limit = 1})->size(), 1u);
  // An out-of-range limit is clamped to the route's range (Spooled's rule).
  EXPECT_EQ(client_->DlqSummary({.queue_name = q, .limit = 0})->size(), 1u);

  auto listed = client_->ListDlq({.queue_name = q, .error_prefix = "gateway"});
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 2u);
  auto dry = client_->RetryDlq({.queue_name = q, .error_prefix = "gateway", .dry_run = true});
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->matched_count, 2);
  auto redriven = client_->RetryDlq({.queue_name = q, .error_prefix = "gateway"});
  ASSERT_TRUE(redriven.ok());
  EXPECT_THAT(redriven->retried_jobs, ElementsAre(t1, t2));
  auto purged = client_->PurgeDlq({.confirm = true, .queue_name = q, .error_prefix = "gateway"});
  ASSERT_TRUE(purged.ok());
  EXPECT_EQ(*purged, 0);  // the timeouts are pending again
  purged = client_->PurgeDlq({.confirm = true, .queue_name = q, .error_prefix = "invalid card"});
  EXPECT_EQ(*purged, 1);
  EXPECT_EQ(client_->GetJob(card).status().code(), ErrorCode::kNotFound);
}

TEST_F(ClientTest, PurgeByReasonAndTagWithDryRun) {
  const auto q = NewQueue();
  auto kill = [&](bool no_retry, Tags tags) {
    const auto id = Enqueue(q, {.max_retries = 0, .tags = std::move(tags)});
    auto job = ClaimOne(q, "w1");
    EXPECT_TRUE(client_->Fail(id, "w1", job.lease_id, "boom", {.no_retry = no_retry}).ok());
    return id;
  };
  const auto bad = kill(true, {{"env", "prod"}});
  const auto tired = kill(false, {{"env", "dev"}});

  auto dry = client_->PurgeDlq({.confirm = true,
                                .queue_name = q,
                                .dead_reason = DeadReason::kNonRetryable,
                                .dry_run = true});
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(*dry, 1);
  EXPECT_TRUE(client_->GetJob(bad).ok());  // a dry run deletes nothing
  auto by_tag = client_->PurgeDlq({.confirm = true, .queue_name = q, .tag = "env=dev"});
  ASSERT_TRUE(by_tag.ok());
  EXPECT_EQ(*by_tag, 1);
  EXPECT_EQ(client_->GetJob(tired).status().code(), ErrorCode::kNotFound);
  auto by_reason = client_->PurgeDlq(
      {.confirm = true, .queue_name = q, .dead_reason = DeadReason::kNonRetryable});
  ASSERT_TRUE(by_reason.ok());
  EXPECT_EQ(*by_reason, 1);
  EXPECT_EQ(client_->GetJob(bad).status().code(), ErrorCode::kNotFound);
}

TEST_F(ClientTest, ClaimWithAcksAndBatchAck) {
  const auto q = NewQueue();
  Enqueue(q);
  Enqueue(q);
  auto claim = client_->Claim({.queue_name = q, .worker_id = "w1", .limit = 2});
  ASSERT_TRUE(claim.ok());
  ASSERT_EQ(claim->jobs.size(), 2u);
  const auto& a = claim->jobs[0];
  const auto& b = claim->jobs[1];
  auto acked = client_->AckBatch(
      "w1", {sdk::Ack::Complete(a.id, a.lease_id, {{"r", 1}}), sdk::Ack::Complete(b.id, "stale")});
  ASSERT_TRUE(acked.ok()) << acked.status().ToString();
  ASSERT_EQ(acked->size(), 2u);
  EXPECT_TRUE((*acked)[0].success);
  EXPECT_EQ((*acked)[0].status, JobStatus::kCompleted);
  EXPECT_FALSE((*acked)[1].success);
  EXPECT_EQ((*acked)[1].error.code(), ErrorCode::kLeaseExpired);

  auto next = client_->Claim(
      {.queue_name = q,
       .worker_id = "w1",
       .wait = std::chrono::milliseconds(100),
       .acks = std::vector<sdk::Ack>{sdk::Ack::Fail(b.id, b.lease_id, "nope", true, std::nullopt,
                                                    boost::json::object{{"exit_code", 4}})}});
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_TRUE(next->jobs.empty());
  ASSERT_EQ(next->results.size(), 1u);
  const sdk::AckResult& dead = next->results[0];
  EXPECT_EQ(dead.status, JobStatus::kDeadletter);
  EXPECT_EQ(dead.will_retry, false);
  EXPECT_EQ(dead.retry_count, 0);
  EXPECT_EQ(dead.dead_reason, DeadReason::kNonRetryable);
  EXPECT_FALSE(dead.scheduled_at);
  auto history = client_->History(b.id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(boost::json::parse(history->back().details_json).at("attempt"),
            (boost::json::value{{"exit_code", 4}}))
      << history->back().details_json;
}

TEST_F(ClientTest, QueuesConfigurePauseResumeDelete) {
  const auto q = NewQueue();
  auto config = client_->ConfigureQueue(
      q, {.max_retries = 5,
          .backoff = NoBackoff(),
          .retention_deadletter = std::optional<std::chrono::seconds>(std::chrono::hours(1))});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  EXPECT_EQ(config->max_retries, 5);
  EXPECT_EQ(config->backoff, NoBackoff());
  EXPECT_EQ(config->retention.deadletter, std::chrono::seconds(3600));
  auto paused = client_->PauseQueue(q, "maintenance");
  ASSERT_TRUE(paused.ok());
  EXPECT_TRUE(paused->paused);
  EXPECT_EQ(paused->paused_reason, "maintenance");
  Enqueue(q);
  auto view = client_->GetQueue(q);
  ASSERT_TRUE(view.ok());
  EXPECT_EQ(view->counts.pending, 1);
  auto stats = client_->QueueStatsOf(q);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->counts.pending, 1);
  auto all = client_->ListQueues();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(std::any_of(all->begin(), all->end(),
                          [&](const sdk::QueueView& v) { return v.config.queue_name == q; }));
  ASSERT_TRUE(client_->ResumeQueue(q).ok());
  EXPECT_EQ(client_->DeleteQueue(q).code(), ErrorCode::kConflict);  // it has a job
  ASSERT_TRUE(client_->DeleteQueue(q, /*delete_jobs=*/true).ok());
  EXPECT_EQ(client_->GetQueue(q).status().code(), ErrorCode::kNotFound);
}

TEST_F(ClientTest, WorkerRegistry) {
  const auto q = NewQueue();
  auto reg = client_->RegisterWorker(
      {.queue_name = q, .hostname = "h1", .max_concurrency = 3, .worker_id = q + "-w"});
  ASSERT_TRUE(reg.ok()) << reg.status().ToString();
  EXPECT_EQ(reg->id, q + "-w");
  auto hb = client_->WorkerHeartbeat(reg->id, {.current_jobs = 2, .status = "draining"});
  ASSERT_TRUE(hb.ok()) << hb.status().ToString();
  EXPECT_EQ(hb->current_jobs, 2);
  EXPECT_EQ(hb->status, "draining");
  auto list = client_->ListWorkers();
  ASSERT_TRUE(list.ok());
  ASSERT_TRUE(client_->DeregisterWorker(reg->id).ok());
  auto w = client_->GetWorker(reg->id);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->status, "offline");
  EXPECT_TRUE(w->deregistered_at.has_value());
  EXPECT_EQ(client_->GetWorker("nope").status().code(), ErrorCode::kNotFound);
}

TEST_F(ClientTest, HealthAndRawCall) {
  auto health = client_->GetHealth();
  ASSERT_TRUE(health.ok()) << health.status().ToString();
  EXPECT_EQ(health->status, "healthy");
  EXPECT_TRUE(client_->Ready().ok());
  auto raw = client_->Call("GET", "/jobs/stats");
  ASSERT_TRUE(raw.ok());
  EXPECT_TRUE(raw->as_object().contains("total"));
}

TEST_F(ClientTest, ManyThreadsShareOneClient) {
  const auto q = NewQueue();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) ok += client_->Enqueue({.queue_name = q, .payload = i}).ok();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, 80);
  EXPECT_EQ(client_->Stats(q)->pending, 80);
}

TEST_F(ClientTest, StopEndsALongPollClaimAndOnlyIt) {
  const auto q = NewQueue();
  std::stop_source stop;
  const auto started = std::chrono::steady_clock::now();
  auto parked = std::async(std::launch::async, [&] {
    return client_->Claim({.queue_name = q, .worker_id = "w", .wait = std::chrono::seconds(25)},
                          stop.get_token());
  });
  // Whether the claim is still being sent or already parked, it ends now.
  stop.request_stop();
  auto r = parked.get();
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  // A request that stop already ended is never sent; other calls go on. (On
  // another queue: the server does not see that the stopped long-poll's
  // client went away, so that claim stays parked on `q` until its wait ends
  // and would take a job enqueued there.)
  EXPECT_FALSE(client_->Claim({.queue_name = q, .worker_id = "w"}, stop.get_token()).ok());
  const auto other = NewQueue();
  Enqueue(other);
  auto claimed = client_->Claim({.queue_name = other, .worker_id = "w"});
  ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
  EXPECT_EQ(claimed->jobs.size(), 1u);
}

TEST_F(ClientTest, OneCallerKeepsOneConnection) {
  Client client(Options());
  const auto q = NewQueue();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(client.Enqueue({.queue_name = q, .payload = i}).ok());
  ASSERT_TRUE(client.Stats(q).ok());
  EXPECT_EQ(client.connections_opened(), 1);
}

TEST(ClientTransportTest, ServerDownIsServiceUnavailable) {
  e2e::ServerProcess server;
  ASSERT_TRUE(server.Start());
  Client client({.server_url = server.base_url(), .connect_timeout = std::chrono::seconds(2)});
  ASSERT_TRUE(client.GetHealth().ok());  // leaves a pooled keep-alive connection
  ASSERT_EQ(server.Stop(), 0);
  // The pooled connection is dead; the call fails rather than hangs. (Its
  // port may already belong to a server of a test running in parallel, so
  // the exact code is checked on a port where nothing listens, below.)
  EXPECT_FALSE(client.GetJob("x").ok());
  Client nowhere({.server_url = "http://127.0.0.1:1", .connect_timeout = std::chrono::seconds(2)});
  auto r = nowhere.GetJob("x");
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_THAT(r.status().message(), HasSubstr("http://127.0.0.1:1"));
}

TEST(ClientTransportTest, BadUrlIsReportedOnEveryCall) {
  Client client({.server_url = "https://example.com"});
  auto r = client.GetHealth();
  EXPECT_EQ(r.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(r.status().field(), "server_url");
}

TEST(ClientAuthTest, KeyProtectedServerNeedsTheKey) {
  e2e::ServerProcess server(
      {.extra_args = {"--api-key", "admin:s3cret", "--api-key", "viewer:look"}});
  ASSERT_TRUE(server.Start());
  Client anonymous({.server_url = server.base_url()});
  EXPECT_EQ(anonymous.Stats().status().code(), ErrorCode::kUnauthorized);
  EXPECT_TRUE(anonymous.GetHealth().ok());  // /health needs no key
  Client wrong({.server_url = server.base_url(), .api_key = "nope"});
  EXPECT_EQ(wrong.Stats().status().code(), ErrorCode::kUnauthorized);
  Client viewer({.server_url = server.base_url(), .api_key = "look"});
  EXPECT_EQ(viewer.Enqueue({.queue_name = "q", .payload = 1}).status().code(),
            ErrorCode::kAccessDenied);
  Client admin({.server_url = server.base_url(), .api_key = "s3cret"});
  EXPECT_TRUE(admin.Enqueue({.queue_name = "q", .payload = 1}).ok());
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace redrive::sdk_test
