// Outgoing webhooks in the engine: the outbox is written with the change that
// caused it, and the dispatcher's decisions, under a manual clock with a
// fake sender (no sockets, no sleeps).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <mutex>

#include "engine/engine.h"
#include "engine/engine_test_util.h"
#include "engine/group_committer.h"
#include "engine/job_ops.h"
#include "engine/metrics.h"
#include "engine/webhooks/outbox.h"
#include "engine/webhooks/subscriptions.h"

namespace redrive::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Answers from a script (then 200s) and records what it was asked to send.
class FakeSender final : public WebhookSender {
 public:
  AttemptResult Send(const OutgoingPost& post, Instant) override {
    std::lock_guard<std::mutex> lock(mu_);
    posts.push_back(post);
    int status = 200;
    if (!script.empty()) {
      status = script.front();
      script.pop_front();
    }
    if (status == 0) return {false, std::nullopt, "connection refused", milliseconds(1)};
    const bool ok = status >= 200 && status < 300;
    return {ok, status,
            ok ? std::nullopt : std::optional<std::string>("HTTP " + std::to_string(status)),
            milliseconds(2)};
  }
  std::mutex mu_;
  std::deque<int> script;  // status codes; 0: connection error
  std::vector<OutgoingPost> posts;
};

// On both write executors (the outbox keeps its per-transaction snapshot in
// the TxContext, and webhook writes refresh the subscriptions after commit).
class WebhookEngineTest : public testing::EngineByExecutorTest {
 protected:
  void SetUp() override {
    EngineByExecutorTest::SetUp();
    sender_ = std::make_shared<FakeSender>();
    EngineOptions options;
    options.webhook_sender = sender_;
    options.webhooks.run_threads = false;
    StartEngine(options);
  }

  Webhook Create(std::vector<std::string> events, WebhookFormat format = WebhookFormat::kJson) {
    CreateWebhookParams p;
    p.name = "test hook";
    p.url = "http://127.0.0.1:9/hook";
    p.events = std::move(events);
    p.secret = "s3cret";
    p.format = format;
    auto r = Call<Webhook>(&Engine::CreateWebhook, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Webhook{};
  }

  // Oldest first.
  std::vector<WebhookDelivery> Deliveries(const std::string& webhook_id) {
    ListDeliveriesParams f;
    f.webhook_id = webhook_id;
    f.limit = 100;
    auto r = Call<std::vector<WebhookDelivery>>(&Engine::ListDeliveries, f);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<WebhookDelivery> out = r.ok() ? *r : std::vector<WebhookDelivery>{};
    std::reverse(out.begin(), out.end());
    return out;
  }
  static std::vector<std::string> Events(const std::vector<WebhookDelivery>& ds) {
    std::vector<std::string> out;
    for (const auto& d : ds) out.push_back(d.event);
    return out;
  }
  Webhook GetHook(const std::string& id) {
    auto r = Call<Webhook>(&Engine::GetWebhook, std::string(id));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Webhook{};
  }

  std::shared_ptr<FakeSender> sender_;
};

TEST_P(WebhookEngineTest, AJobsLifeWritesOneDeliveryPerSubscribedEvent) {
  Webhook all = Create({"job.created", "job.started", "job.failed", "job.deadlettered"});
  Webhook dead_only = Create({"job.deadlettered"});
  const std::string id = EnqueueDead("emails");

  auto ds = Deliveries(all.id);
  EXPECT_THAT(Events(ds),
              ElementsAre("job.created", "job.started", "job.failed", "job.deadlettered"));
  for (const auto& d : ds) {
    EXPECT_EQ(d.status, DeliveryStatus::kPending);
    EXPECT_EQ(d.next_attempt_at, clock_.Now());
    EXPECT_THAT(d.body, HasSubstr("\"job_id\":\"" + id + "\""));
    EXPECT_THAT(d.body, HasSubstr("\"id\":\"" + d.event_id + "\""));
    EXPECT_THAT(d.body, Not(HasSubstr("\"payload\"")));
  }
  EXPECT_THAT(ds[2].body, HasSubstr("\"will_retry\":false"));
  EXPECT_THAT(ds[3].body, HasSubstr("\"dead_reason\":\"max_retries_exceeded\""));
  // One event, one id, whichever webhook it goes to.
  auto dead = Deliveries(dead_only.id);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].event_id, ds[3].event_id);
  EXPECT_EQ(dead[0].body, ds[3].body);
}

TEST_P(WebhookEngineTest, NoDeliveriesForEventsNobodySubscribedTo) {
  Webhook w = Create({"job.completed"});
  Enqueue("emails");
  Claim("emails");
  EXPECT_THAT(Deliveries(w.id), IsEmpty());
  // Disabled webhooks get nothing either.
  WebhookPatch off;
  off.enabled = false;
  ASSERT_TRUE(Call<Webhook>(&Engine::UpdateWebhook, std::string(w.id), off).ok());
  Webhook created = Create({"job.created"});
  WebhookPatch off2 = off;
  ASSERT_TRUE(Call<Webhook>(&Engine::UpdateWebhook, std::string(created.id), off2).ok());
  Enqueue("emails");
  EXPECT_THAT(Deliveries(created.id), IsEmpty());
}

TEST_P(WebhookEngineTest, RetriedCancelledAndQueueEventsCarryTheirDetails) {
  Webhook w = Create({"job.retried", "job.cancelled", "queue.paused", "queue.resumed"});
  const std::string dead = EnqueueDead("emails");
  DlqRetryParams redrive;
  redrive.job_ids = {dead};
  ASSERT_TRUE(Call<DlqRetryResult>(&Engine::DlqRetry, redrive).ok());
  ASSERT_TRUE(CallStatus(&Engine::Cancel, std::string(dead)).ok());
  ASSERT_TRUE(Call<QueueConfig>(&Engine::PauseQueue, std::string("emails"),
                                std::optional<std::string>("deploy"))
                  .ok());
  ASSERT_TRUE(Call<QueueConfig>(&Engine::ResumeQueue, std::string("emails")).ok());
  auto ds = Deliveries(w.id);
  ASSERT_THAT(Events(ds),
              ElementsAre("job.retried", "job.cancelled", "queue.paused", "queue.resumed"));
  EXPECT_THAT(ds[0].body, HasSubstr("\"source\":\"dlq_retry\""));
  EXPECT_THAT(ds[2].body, HasSubstr(R"("data":{"queue_name":"emails","reason":"deploy"})"));
}

// Spooled's worker events, through the same durable outbox as job events.
TEST_P(WebhookEngineTest, WorkerRegistrationAndDeregistrationAreEvents) {
  Webhook w = Create({"worker.registered", "worker.deregistered"});
  RegisterWorkerParams reg;
  reg.queue_name = "emails";
  reg.hostname = "box-1";
  auto worker = Call<WorkerInfo>(&Engine::RegisterWorker, reg);
  ASSERT_TRUE(worker.ok());
  ASSERT_TRUE(CallStatus(&Engine::DeregisterWorker, std::string(worker->id)).ok());
  // A deregister of a worker nobody registered is a 404 and sends nothing.
  EXPECT_EQ(CallStatus(&Engine::DeregisterWorker, std::string("nobody")).code(),
            ErrorCode::kNotFound);
  auto ds = Deliveries(w.id);
  ASSERT_THAT(Events(ds), ElementsAre("worker.registered", "worker.deregistered"));
  EXPECT_THAT(ds[0].body,
              HasSubstr(R"("worker_id":")" + worker->id + R"(","queue_name":"emails")"));
  EXPECT_THAT(ds[0].body, HasSubstr(R"("hostname":"box-1")"));
  EXPECT_THAT(ds[1].body, HasSubstr(R"("status":"offline")"));
  Enqueue("emails");  // job events are not what it subscribed to
  EXPECT_EQ(Deliveries(w.id).size(), 2u);
}

TEST_P(WebhookEngineTest, ARolledBackRequestWritesNoDelivery) {
  Webhook w = Create({"job.created"});
  // A committer of our own, to run a request that enqueues and then fails.
  SubscriptionCache cache;
  cache.Set({w});
  GroupCommitter committer(*store_, clock_, random_, 16, nullptr, nullptr);
  WebhookOutbox outbox(cache);
  committer.AddHook(&outbox);
  committer.Start();
  Status st = committer.RunAndWait([](store::WriteTx& tx, TxContext& ctx) -> Status {
    EnqueueParams p;
    p.queue_name = "emails";
    p.payload_json = "{}";
    auto r = ops::Enqueue(tx, ctx, p);
    if (!r.ok()) return r.status();
    return Status::Conflict("changed my mind");
  });
  EXPECT_EQ(st.code(), ErrorCode::kConflict);
  // The same request succeeding writes its delivery in the same commit.
  st = committer.RunAndWait([](store::WriteTx& tx, TxContext& ctx) -> Status {
    EnqueueParams p;
    p.queue_name = "emails";
    p.payload_json = "{}";
    return ops::Enqueue(tx, ctx, p).status();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  committer.Stop();
  EXPECT_THAT(Events(Deliveries(w.id)), ElementsAre("job.created"));
}

TEST_P(WebhookEngineTest, FailedAttemptsRetryOnTheExactScheduleThenDeliver) {
  Webhook w = Create({"job.created"});
  Enqueue("emails");
  sender_->script = {500, 0};
  const Instant t0 = clock_.Now();
  EXPECT_EQ(engine_->RunWebhooksOnce(), 1);
  auto d = Deliveries(w.id).at(0);
  EXPECT_EQ(d.attempts, 1);
  EXPECT_EQ(d.last_status_code, 500);
  EXPECT_EQ(d.next_attempt_at, t0 + seconds(5));
  ASSERT_EQ(sender_->posts.size(), 1u);
  EXPECT_EQ(sender_->posts[0].secret, "s3cret");
  EXPECT_EQ(sender_->posts[0].event, "job.created");
  EXPECT_EQ(sender_->posts[0].delivery_id, d.id);
  EXPECT_EQ(sender_->posts[0].body, d.body);

  clock_.Advance(milliseconds(4999));
  EXPECT_EQ(engine_->RunWebhooksOnce(), 0);
  clock_.Advance(milliseconds(1));
  EXPECT_EQ(engine_->RunWebhooksOnce(), 1);  // connection refused
  d = Deliveries(w.id).at(0);
  EXPECT_EQ(d.attempts, 2);
  EXPECT_EQ(d.last_status_code, std::nullopt);
  EXPECT_EQ(d.last_error, "connection refused");
  EXPECT_EQ(d.next_attempt_at, clock_.Now() + seconds(10));

  clock_.Advance(seconds(10));
  EXPECT_EQ(engine_->RunWebhooksOnce(), 1);
  d = Deliveries(w.id).at(0);
  EXPECT_EQ(d.status, DeliveryStatus::kDelivered);
  EXPECT_EQ(d.attempts, 3);
  EXPECT_EQ(d.delivered_at, clock_.Now());
  EXPECT_EQ(GetHook(w.id).consecutive_failures, 0);
  EXPECT_EQ(engine_->RunWebhooksOnce(), 0);

  const std::string text = Scrape();
  EXPECT_THAT(text, HasSubstr("redrive_webhook_deliveries_total{outcome=\"delivered\"} 1"));
  EXPECT_THAT(text, HasSubstr("redrive_webhook_deliveries_total{outcome=\"failed\"} 2"));
}

TEST_P(WebhookEngineTest, TwentyStraightFailuresDisableTheWebhookAndStopNewDeliveries) {
  Webhook w = Create({"job.created"});
  for (int i = 0; i < 20; ++i) Enqueue("emails");
  sender_->script.assign(20, 503);
  EXPECT_EQ(engine_->RunWebhooksOnce(), 20);
  Webhook after = GetHook(w.id);
  EXPECT_FALSE(after.enabled);
  EXPECT_EQ(after.consecutive_failures, 20);
  ASSERT_TRUE(after.disabled_reason);
  EXPECT_THAT(*after.disabled_reason, HasSubstr("20 consecutive failed deliveries"));
  EXPECT_THAT(Scrape(), HasSubstr("redrive_webhooks_disabled_total 1"));

  // Disabled: nothing is sent and new events are not queued for it.
  clock_.Advance(seconds(3600));
  EXPECT_EQ(engine_->RunWebhooksOnce(), 0);
  Enqueue("emails");
  EXPECT_EQ(Deliveries(w.id).size(), 20u);

  // Re-enabled: the streak starts over and the pending deliveries go out.
  WebhookPatch on;
  on.enabled = true;
  auto re = Call<Webhook>(&Engine::UpdateWebhook, std::string(w.id), on);
  ASSERT_TRUE(re.ok());
  EXPECT_EQ(re->consecutive_failures, 0);
  EXPECT_FALSE(re->disabled_reason);
  EXPECT_EQ(engine_->RunWebhooksOnce(), 20);
  EXPECT_EQ(GetHook(w.id).consecutive_failures, 0);
}

TEST_P(WebhookEngineTest, GivesUpAfterMaxAttempts) {
  sender_ = std::make_shared<FakeSender>();
  EngineOptions options;
  options.webhook_sender = sender_;
  options.webhooks.run_threads = false;
  options.webhooks.policy.max_attempts = 2;
  StartEngine(options);
  Webhook w = Create({"job.created"});
  Enqueue("emails");
  sender_->script = {500, 500};
  EXPECT_EQ(engine_->RunWebhooksOnce(), 1);
  clock_.Advance(seconds(5));
  EXPECT_EQ(engine_->RunWebhooksOnce(), 1);
  auto d = Deliveries(w.id).at(0);
  EXPECT_EQ(d.status, DeliveryStatus::kFailed);
  clock_.Advance(seconds(3600));
  EXPECT_EQ(engine_->RunWebhooksOnce(), 0);
  EXPECT_THAT(Scrape(), HasSubstr("redrive_webhook_deliveries_total{outcome=\"gave_up\"} 1"));
}

TEST_P(WebhookEngineTest, SlackWebhooksGetATextMessage) {
  Webhook w = Create({"job.deadlettered"}, WebhookFormat::kSlack);
  const std::string id = EnqueueDead("emails");
  auto ds = Deliveries(w.id);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].body, "{\"text\":\"Job " + id +
                            " in queue emails dead-lettered (max_retries_exceeded): x\"}");
}

TEST_P(WebhookEngineTest, DeletingAWebhookDeletesItsDeliveriesAndUnsubscribes) {
  Webhook w = Create({"job.created"});
  Enqueue("emails");
  ASSERT_TRUE(CallStatus(&Engine::DeleteWebhook, std::string(w.id)).ok());
  ListDeliveriesParams f;
  f.webhook_id = w.id;
  EXPECT_EQ(Call<std::vector<WebhookDelivery>>(&Engine::ListDeliveries, f).status().code(),
            ErrorCode::kNotFound);
  Enqueue("emails");  // no webhook left: nothing to write, nothing fails
  EXPECT_EQ(engine_->RunWebhooksOnce(), 0);
  EXPECT_EQ(CallStatus(&Engine::DeleteWebhook, std::string(w.id)).code(), ErrorCode::kNotFound);
}

TEST_P(WebhookEngineTest, ASecretIsGeneratedWhenNoneIsGiven) {
  CreateWebhookParams p;
  p.name = "n";
  p.url = "http://127.0.0.1:9/";
  p.events = {"job.created"};
  auto a = Call<Webhook>(&Engine::CreateWebhook, p);
  auto b = Call<Webhook>(&Engine::CreateWebhook, p);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->secret.substr(0, 6), "whsec_");
  EXPECT_EQ(a->secret.size(), 70u);
  EXPECT_NE(a->secret, b->secret);
}

// Spooled's completion_webhook: the built-in webhook's deliveries, one per
// end of a job that names a URL, to that URL, signed with its secret, with
// no subscription at all.
TEST_P(WebhookEngineTest, AJobsCompletionWebhookGetsItsEndsThroughTheBuiltInWebhook) {
  EnqueueParams p;
  p.completion_webhook = "http://127.0.0.1:9/done?job=a";
  const std::string done = Enqueue("emails", p);
  Enqueue("emails");  // names no URL: no delivery
  auto jobs = Claim("emails", 2);
  ASSERT_EQ(jobs.size(), 2u);
  for (const Job& j : jobs) {
    EXPECT_TRUE(CallStatus(&Engine::Complete, CompleteParams{j.id, "w1", *j.lease_id}).ok());
  }
  EnqueueParams dead_p = p;
  dead_p.max_retries = 0;
  dead_p.completion_webhook = "http://127.0.0.1:9/dead";
  const std::string dead = Enqueue("sms", dead_p);
  auto claimed = Claim("sms");
  ASSERT_EQ(claimed.size(), 1u);
  ASSERT_TRUE(
      Call<FailResult>(&Engine::Fail, FailParams{dead, "w1", *claimed[0].lease_id, "x"}).ok());
  EnqueueParams cancel_p = p;
  cancel_p.completion_webhook = "http://127.0.0.1:9/cancelled";
  const std::string cancelled = Enqueue("sms", cancel_p);
  ASSERT_TRUE(CallStatus(&Engine::Cancel, std::string(cancelled)).ok());

  const Webhook builtin = GetHook(std::string(kCompletionWebhookId));
  EXPECT_EQ(builtin.name, kCompletionWebhookName);
  EXPECT_TRUE(builtin.events.empty());
  EXPECT_EQ(builtin.secret.substr(0, 6), "whsec_");
  auto ds = Deliveries(builtin.id);
  ASSERT_THAT(Events(ds), ElementsAre("job.completed", "job.deadlettered", "job.cancelled"));
  EXPECT_EQ(ds[0].url, "http://127.0.0.1:9/done?job=a");
  EXPECT_THAT(ds[0].body, HasSubstr("\"job_id\":\"" + done + "\""));
  EXPECT_EQ(ds[1].url, "http://127.0.0.1:9/dead");
  EXPECT_THAT(ds[1].body, HasSubstr("\"dead_reason\":\"max_retries_exceeded\""));
  EXPECT_EQ(ds[2].url, "http://127.0.0.1:9/cancelled");
  EXPECT_THAT(ds[2].body, HasSubstr("\"job_id\":\"" + cancelled + "\""));

  // Sent to each job's URL, signed with the built-in webhook's secret.
  EXPECT_EQ(engine_->RunWebhooksOnce(), 3);
  ASSERT_EQ(sender_->posts.size(), 3u);
  std::vector<std::string> urls;
  for (const OutgoingPost& post : sender_->posts) {
    urls.push_back(post.url);
    EXPECT_EQ(post.secret, builtin.secret);
  }
  EXPECT_THAT(urls, ::testing::UnorderedElementsAre("http://127.0.0.1:9/done?job=a",
                                                    "http://127.0.0.1:9/dead",
                                                    "http://127.0.0.1:9/cancelled"));
  // The job keeps its URL.
  auto job = Call<Job>(&Engine::GetJob, std::string(done));
  ASSERT_TRUE(job.ok());
  EXPECT_EQ(job->completion_webhook, "http://127.0.0.1:9/done?job=a");
}

TEST_P(WebhookEngineTest, TheCompletionWebhookNeitherDisablesItselfNorChangesShape) {
  EnqueueParams p;
  p.completion_webhook = "http://127.0.0.1:9/down";
  for (int i = 0; i < kMaxConsecutiveFailures + 5; ++i) {
    const std::string id = Enqueue("emails", p);
    ASSERT_TRUE(CallStatus(&Engine::Cancel, std::string(id)).ok());
  }
  const int n = kMaxConsecutiveFailures + 5;
  for (int i = 0; i < n; ++i) sender_->script.push_back(503);
  EXPECT_EQ(engine_->RunWebhooksOnce(), n);
  const std::string id(kCompletionWebhookId);
  Webhook builtin = GetHook(id);
  EXPECT_TRUE(builtin.enabled);  // one receiver's outage stops no one else's callbacks
  EXPECT_EQ(builtin.consecutive_failures, 0);

  WebhookPatch url;
  url.url = "http://127.0.0.1:9/elsewhere";
  auto refused = Call<Webhook>(&Engine::UpdateWebhook, std::string(id), url);
  EXPECT_EQ(refused.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(refused.status().field(), "url");
  WebhookPatch events;
  events.events = std::vector<std::string>{"job.created"};
  EXPECT_EQ(Call<Webhook>(&Engine::UpdateWebhook, std::string(id), events).status().field(),
            "events");
  WebhookPatch rotate;
  rotate.secret = "whsec_rotated";
  rotate.enabled = false;
  auto rotated = Call<Webhook>(&Engine::UpdateWebhook, std::string(id), rotate);
  ASSERT_TRUE(rotated.ok()) << rotated.status().ToString();
  EXPECT_EQ(rotated->secret, "whsec_rotated");
  EXPECT_EQ(CallStatus(&Engine::DeleteWebhook, std::string(id)).code(), ErrorCode::kConflict);
  EXPECT_EQ(Call<WebhookTestResult>(&Engine::TestWebhook, std::string(id)).status().code(),
            ErrorCode::kConflict);
  // Disabled, it holds new deliveries (pending) rather than dropping them.
  const std::string held = Enqueue("emails", p);
  ASSERT_TRUE(CallStatus(&Engine::Cancel, std::string(held)).ok());
  clock_.Advance(std::chrono::hours(2));
  EXPECT_EQ(engine_->RunWebhooksOnce(), 0);
  EXPECT_EQ(Deliveries(id).back().status, DeliveryStatus::kPending);
}

// The built-in webhook is not an operator's: it does not count against
// max_webhooks, and it makes no snapshot non-empty (the job hot path stays
// one pointer test when no webhook subscribes).
TEST_P(WebhookEngineTest, TheCompletionWebhookIsMadeOnceAndSubscribesToNothing) {
  EnqueueParams p;
  p.completion_webhook = "http://127.0.0.1:9/a";
  Enqueue("emails", p);
  Enqueue("emails", p);
  auto all = Call<std::vector<Webhook>>(&Engine::ListWebhooks);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  EXPECT_TRUE(IsCompletionWebhook(all->front()));
  SubscriptionCache cache;
  cache.Set(*all, 1);
  EXPECT_TRUE(cache.Get()->empty());
  EXPECT_TRUE(cache.Get()->completion_webhook);
  EXPECT_FALSE(cache.Get()->Wants("job.completed"));
}

INSTANTIATE_TEST_SUITE_P(Executors, WebhookEngineTest, testing::kBothExecutors,
                         testing::ExecutorTestName);

}  // namespace
}  // namespace redrive::engine
