// Outgoing webhooks end to end: the real `redrive serve` POSTs to a receiver
// on loopback started by the test, so the server runs with
// --webhook-allow-private-targets (webhook_targets_test.cc runs without).
// Retries use a 100 ms base delay (--webhook-retry-base-ms) so the schedule
// plays out in well under a second.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <set>

#include "e2e/support/server_process.h"
#include "e2e/support/wait.h"
#include "e2e/support/webhook_receiver.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr char kSecret[] = "topsecret";

class WebhooksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(receiver_.listening());
    server_.options().extra_args = {"--webhook-allow-private-targets",
                                    "--webhook-retry-base-ms",
                                    "100",
                                    "--api-key",
                                    "admin:adm",
                                    "--api-key",
                                    "worker:wrk",
                                    "--api-key",
                                    "viewer:view"};
    ASSERT_TRUE(server_.Start());
    Connect();
  }
  void TearDown() override {
    if (server_.running()) {
      EXPECT_EQ(server_.Stop(), 0) << server_.Stderr();
    }
  }
  void Connect() {
    client_ = std::make_unique<HttpClient>(server_.Client());
    client_->set_bearer_token("adm");
  }

  JsonResponse Call(const std::string& method, const std::string& path,
                    const json::value& body = nullptr) {
    if (body.is_null()) return client_->JsonRequest(method, "/api/v1" + path);
    return client_->JsonRequest(method, "/api/v1" + path, body);
  }

  // Creates a webhook to the receiver and returns its id.
  std::string CreateHook(json::array events, const std::string& url = "") {
    JsonResponse r = Call("POST", "/outgoing-webhooks",
                          json::object{{"name", "e2e"},
                                       {"url", url.empty() ? receiver_.url() : url},
                                       {"events", std::move(events)},
                                       {"secret", kSecret}});
    EXPECT_EQ(r.status, 201) << r.raw.body;
    return r.status == 201 ? std::string(r.body.at("id").as_string()) : "";
  }

  json::array Deliveries(const std::string& hook) {
    JsonResponse r = Call("GET", "/outgoing-webhooks/" + hook + "/deliveries");
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.body.is_array() ? r.body.as_array() : json::array{};
  }

  std::string Enqueue(const std::string& queue, json::object extra = {}) {
    extra["queue_name"] = queue;
    extra["payload"] = json::object{{"card", "4111-secret"}};
    JsonResponse r = Call("POST", "/jobs", extra);
    EXPECT_EQ(r.status, 201) << r.raw.body;
    return r.status == 201 ? std::string(r.body.at("id").as_string()) : "";
  }

  std::string Metrics() { return client_->Get("/metrics").body; }

  WebhookReceiver receiver_;
  ServerProcess server_;
  std::unique_ptr<HttpClient> client_;
};

// Checks the headers and signature of one received POST; returns its body.
json::object VerifiedBody(const ReceivedRequest& r) {
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/hook");
  EXPECT_EQ(r.header("content-type"), "application/json");
  EXPECT_TRUE(r.header("user-agent").starts_with("Redrive-Webhooks/")) << r.header("user-agent");
  EXPECT_FALSE(r.header("x-redrive-delivery").empty());
  const std::string ts = r.header("x-redrive-timestamp");
  const long long unix_now = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  EXPECT_NEAR(std::stoll(ts), unix_now, 60);
  EXPECT_EQ(r.header("x-redrive-signature"),
            "sha256=" + HmacSha256HexForTest(kSecret, ts + "." + r.body));
  json::object body = json::parse(r.body).as_object();
  EXPECT_EQ(std::string(body.at("event").as_string()), r.header("x-redrive-event"));
  return body;
}

// A receiver written for Spooled checks X-Spooled-Signature as "sha256=" +
// hex HMAC(secret, "<X-Spooled-Timestamp>.<body>"): it verifies these.
TEST_F(WebhooksTest, SpooledSignatureFormatIsVerifiedTheWaySpooledReceiversDo) {
  JsonResponse r = Call("POST", "/outgoing-webhooks",
                        json::object{{"name", "spooled"},
                                     {"url", receiver_.url()},
                                     {"events", json::array{"job.failed", "worker.registered"}},
                                     {"secret", kSecret},
                                     {"signature_format", "spooled"}});
  ASSERT_EQ(r.status, 201) << r.raw.body;
  ASSERT_EQ(Call("POST", "/workers/register",
                 json::object{{"queue_name", "sp"}, {"hostname", "box"}, {"worker_id", "w-sp"}})
                .status,
            201);
  ASSERT_TRUE(receiver_.WaitForRequests(1, 10s)) << server_.Stderr();
  const ReceivedRequest got = receiver_.Requests()[0];  // Requests() is a copy
  EXPECT_EQ(got.header("x-spooled-event"), "worker.registered");
  EXPECT_EQ(got.header("x-spooled-delivery-attempt"), "1");
  const std::string ts = got.header("x-spooled-timestamp");
  ASSERT_FALSE(ts.empty());
  EXPECT_EQ(got.header("x-spooled-signature"),
            "sha256=" + HmacSha256HexForTest(kSecret, ts + "." + got.body));
  EXPECT_TRUE(got.header("x-redrive-signature").empty());
  json::object body = json::parse(got.body).as_object();
  EXPECT_EQ(body.at("data").at("worker_id"), "w-sp");
}

TEST_F(WebhooksTest, CrudValidationAndTheSecretRule) {
  JsonResponse created = Call("POST", "/outgoing-webhooks",
                              json::object{{"name", "ops"},
                                           {"url", "https://hooks.example.com/x"},
                                           {"events", json::array{"job.failed"}}});
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string secret(created.body.at("secret").as_string());
  EXPECT_TRUE(secret.starts_with("whsec_"));
  EXPECT_EQ(secret.size(), 70u);
  const std::string path = "/outgoing-webhooks/" + std::string(created.body.at("id").as_string());

  JsonResponse got = Call("GET", path);
  ASSERT_EQ(got.status, 200);
  EXPECT_FALSE(got.body.as_object().contains("secret"));
  EXPECT_EQ(got.raw.body.find(secret), std::string::npos);
  EXPECT_EQ(got.body.at("has_secret"), true);
  EXPECT_EQ(Call("GET", "/outgoing-webhooks").raw.body.find(secret), std::string::npos);

  JsonResponse bad = Call(
      "POST", "/outgoing-webhooks",
      json::object{{"name", "x"}, {"url", "http://a/"}, {"events", json::array{"job.exploded"}}});
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.body.at("code"), "VALIDATION_ERROR");
  EXPECT_EQ(bad.body.at("details").at("field"), "events");
  bad = Call(
      "POST", "/outgoing-webhooks",
      json::object{{"name", "x"}, {"url", "mailto:a@b"}, {"events", json::array{"job.failed"}}});
  EXPECT_EQ(bad.body.at("details").at("field"), "url");

  JsonResponse put = Call("PUT", path, json::object{{"name", "renamed"}});
  ASSERT_EQ(put.status, 200);
  EXPECT_EQ(put.body.at("name"), "renamed");
  EXPECT_EQ(put.body.at("url"), "https://hooks.example.com/x");
  EXPECT_EQ(Call("DELETE", path).status, 204);
  EXPECT_EQ(Call("GET", path).status, 404);
  EXPECT_EQ(Call("DELETE", path).status, 404);
}

TEST_F(WebhooksTest, ViewersReadWithoutSecretsWorkersAreRefused) {
  const std::string hook = CreateHook({"job.created"});
  client_->set_bearer_token("view");
  EXPECT_EQ(Call("GET", "/outgoing-webhooks").status, 200);
  EXPECT_EQ(Call("GET", "/outgoing-webhooks/" + hook + "/deliveries").status, 200);
  EXPECT_EQ(Call("PUT", "/outgoing-webhooks/" + hook, json::object{{"enabled", false}}).status,
            403);
  EXPECT_EQ(Call("POST", "/outgoing-webhooks/" + hook + "/test", json::object{}).status, 403);
  client_->set_bearer_token("wrk");
  EXPECT_EQ(Call("GET", "/outgoing-webhooks").status, 403);
  EXPECT_EQ(Call("DELETE", "/outgoing-webhooks/" + hook).status, 403);
}

TEST_F(WebhooksTest, ADeadLetteredJobDeliversSignedEvents) {
  const std::string hook =
      CreateHook({"job.created", "job.started", "job.failed", "job.deadlettered"});
  const std::string id = Enqueue("wh-dead", {{"max_retries", 0}});
  JsonResponse claim =
      Call("POST", "/jobs/claim", json::object{{"queue_name", "wh-dead"}, {"worker_id", "w1"}});
  ASSERT_EQ(claim.status, 200);
  const json::value lease = claim.body.at("jobs").at(0).at("lease_id");
  JsonResponse fail =
      Call("POST", "/jobs/" + id + "/fail",
           json::object{{"worker_id", "w1"}, {"lease_id", lease}, {"error", "boom"}});
  ASSERT_EQ(fail.status, 200) << fail.raw.body;

  ASSERT_TRUE(receiver_.WaitForRequests(4, 10s)) << server_.Stderr();
  std::set<std::string> events;
  std::set<std::string> event_ids;
  for (const ReceivedRequest& r : receiver_.Requests()) {
    json::object body = VerifiedBody(r);
    events.insert(std::string(body.at("event").as_string()));
    event_ids.insert(std::string(body.at("id").as_string()));
    EXPECT_EQ(body.at("data").at("job_id"), json::value(id));
    EXPECT_EQ(body.at("data").at("queue_name"), "wh-dead");
    EXPECT_EQ(r.body.find("4111-secret"), std::string::npos) << "payload leaked";
    if (body.at("event") == "job.failed") {
      EXPECT_EQ(body.at("data").at("will_retry"), false);
      EXPECT_EQ(body.at("data").at("last_error"), "boom");
    }
    if (body.at("event") == "job.deadlettered") {
      EXPECT_EQ(body.at("data").at("dead_reason"), "max_retries_exceeded");
    }
  }
  EXPECT_EQ(events, (std::set<std::string>{"job.created", "job.started", "job.failed",
                                           "job.deadlettered"}));
  EXPECT_EQ(event_ids.size(), 4u);
  ASSERT_TRUE(WaitUntil([&] {
    json::array ds = Deliveries(hook);
    return ds.size() == 4 && std::all_of(ds.begin(), ds.end(), [](const json::value& d) {
             return d.at("status") == "delivered";
           });
  }));
}

// Spooled's completion_webhook through the real binary: a job that names a
// URL gets its end POSTed there, signed with the built-in webhook's secret
// (set through the API, as a receiver's owner would: like every webhook's,
// it is never shown), with no subscription.
TEST_F(WebhooksTest, ACompletionWebhookIsCalledWhenItsJobEndsSignedByTheBuiltInWebhook) {
  const std::string url = receiver_.url() + "?order=17";
  const std::string id = Enqueue("wh-done", {{"completion_webhook", url}});
  const std::string cancelled = Enqueue("wh-done", {{"completion_webhook", url}});
  const std::string plain = Enqueue("wh-done");
  JsonResponse job = Call("GET", "/jobs/" + id);
  EXPECT_EQ(job.body.at("completion_webhook"), json::value(url));
  const std::string builtin_path = "/outgoing-webhooks/00000000-0000-7000-8000-000000000001";
  JsonResponse keyed = Call("PUT", builtin_path, json::object{{"secret", "completion-secret"}});
  ASSERT_EQ(keyed.status, 200) << keyed.raw.body;
  JsonResponse claim =
      Call("POST", "/jobs/claim", json::object{{"queue_name", "wh-done"}, {"worker_id", "w1"}});
  ASSERT_EQ(claim.status, 200) << claim.raw.body;
  ASSERT_EQ(claim.body.at("jobs").at(0).at("id"), json::value(id));
  ASSERT_EQ(Call("POST", "/jobs/" + id + "/complete",
                 json::object{{"worker_id", "w1"},
                              {"lease_id", claim.body.at("jobs").at(0).at("lease_id")},
                              {"result", json::object{{"ok", true}}}})
                .status,
            200);
  ASSERT_EQ(Call("DELETE", "/jobs/" + cancelled).status, 204);

  ASSERT_TRUE(receiver_.WaitForRequests(2, 10s)) << server_.Stderr();
  JsonResponse builtin = Call("GET", builtin_path);
  ASSERT_EQ(builtin.status, 200) << builtin.raw.body;
  EXPECT_EQ(builtin.body.at("name"), "job-completion");
  const std::string secret = "completion-secret";
  std::map<std::string, std::string> event_of_job;
  for (const ReceivedRequest& r : receiver_.Requests()) {
    EXPECT_EQ(r.target, "/hook?order=17");
    const std::string ts = r.header("x-redrive-timestamp");
    EXPECT_EQ(r.header("x-redrive-signature"),
              "sha256=" + HmacSha256HexForTest(secret, ts + "." + r.body));
    json::object body = json::parse(r.body).as_object();
    event_of_job[std::string(body.at("data").at("job_id").as_string())] =
        std::string(body.at("event").as_string());
  }
  EXPECT_EQ(event_of_job, (std::map<std::string, std::string>{{id, "job.completed"},
                                                              {cancelled, "job.cancelled"}}));
  EXPECT_EQ(event_of_job.count(plain), 0u);
  // The deliveries log of the built-in webhook names each callback's URL.
  ASSERT_TRUE(WaitUntil([&] {
    json::array ds = Deliveries("00000000-0000-7000-8000-000000000001");
    return ds.size() == 2 && std::all_of(ds.begin(), ds.end(), [&](const json::value& d) {
             return d.at("status") == "delivered" && d.at("url") == json::value(url);
           });
  }));
}

TEST_F(WebhooksTest, RetriesAfterTwo500sAndDeliversOnTheThirdAttempt) {
  const std::string hook = CreateHook({"job.created"});
  receiver_.Script({500, 500});
  Enqueue("wh-retry");
  ASSERT_TRUE(receiver_.WaitForRequests(3, 10s)) << server_.Stderr();
  auto requests = receiver_.Requests();
  // The same delivery and event each time, signed afresh.
  EXPECT_EQ(requests[0].header("x-redrive-delivery"), requests[2].header("x-redrive-delivery"));
  EXPECT_EQ(requests[0].body, requests[2].body);
  VerifiedBody(requests[2]);
  EXPECT_EQ(requests[2].header("host"), "127.0.0.1:" + std::to_string(receiver_.port()));

  json::array ds;
  ASSERT_TRUE(WaitUntil([&] {
    ds = Deliveries(hook);
    return ds.size() == 1 && ds[0].at("status") == "delivered";
  })) << json::serialize(ds);
  EXPECT_EQ(ds[0].at("attempts"), 3);
  EXPECT_EQ(ds[0].at("last_status_code"), 200);
  EXPECT_EQ(ds[0].at("event"), "job.created");
  EXPECT_EQ(ds[0].at("body").at("event"), "job.created");

  const std::string m = Metrics();
  EXPECT_NE(m.find("redrive_webhook_deliveries_total{outcome=\"delivered\"} 1\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("redrive_webhook_deliveries_total{outcome=\"failed\"} 2\n"), std::string::npos)
      << m;
  JsonResponse hook_now = Call("GET", "/outgoing-webhooks/" + hook);
  EXPECT_EQ(hook_now.body.at("consecutive_failures"), 0);
}

TEST_F(WebhooksTest, PendingDeliveriesSurviveARestart) {
  const uint16_t port = receiver_.port();
  const std::string hook = CreateHook({"job.created"}, receiver_.url());
  receiver_.Stop();  // the receiver is down: connections are refused
  const std::string id = Enqueue("wh-restart");
  ASSERT_TRUE(WaitUntil([&] {
    json::array ds = Deliveries(hook);
    return ds.size() == 1 && ds[0].at("attempts").as_int64() >= 1;
  })) << server_.Stderr();
  EXPECT_EQ(Deliveries(hook)[0].at("status"), "pending");
  EXPECT_FALSE(Deliveries(hook)[0].at("last_error").is_null());

  ASSERT_EQ(server_.Stop(), 0) << server_.Stderr();
  WebhookReceiver back(port);
  ASSERT_TRUE(back.listening()) << "port " << port << " was taken meanwhile";
  ASSERT_TRUE(server_.Start());
  Connect();
  ASSERT_TRUE(back.WaitForRequests(1, 15s)) << server_.Stderr();
  json::object body = VerifiedBody(back.Requests()[0]);
  EXPECT_EQ(body.at("data").at("job_id"), json::value(id));
  ASSERT_TRUE(WaitUntil([&] { return Deliveries(hook)[0].at("status") == "delivered"; }));
}

TEST_F(WebhooksTest, AKilledServerLosesNoEvent) {
  // A short POST timeout also shortens the reservation of a delivery that
  // was in flight when the process died (timeout + 5 s).
  ASSERT_EQ(server_.Stop(), 0);
  server_.options().extra_args.push_back("--webhook-timeout");
  server_.options().extra_args.push_back("1s");
  ASSERT_TRUE(server_.Start());
  Connect();
  const uint16_t port = receiver_.port();
  const std::string hook = CreateHook({"job.created"}, receiver_.url());
  receiver_.Stop();
  const std::string id = Enqueue("wh-crash");  // 201: the job and its delivery are durable
  server_.Kill();

  WebhookReceiver back(port);
  ASSERT_TRUE(back.listening()) << "port " << port << " was taken meanwhile";
  ASSERT_TRUE(server_.Start());
  Connect();
  ASSERT_TRUE(back.WaitForRequests(1, 15s)) << server_.Stderr();
  EXPECT_EQ(VerifiedBody(back.Requests()[0]).at("data").at("job_id"), json::value(id));
}

TEST_F(WebhooksTest, TwentyStraightFailuresDisableTheWebhookUntilReEnabled) {
  receiver_.set_default_status(503);
  const std::string hook = CreateHook({"job.created"});
  json::array jobs;
  for (int i = 0; i < 20; ++i) jobs.push_back(json::object{{"payload", json::object{}}});
  ASSERT_EQ(
      Call("POST", "/jobs/bulk", json::object{{"queue_name", "wh-off"}, {"jobs", jobs}}).status,
      200);
  JsonResponse w;
  ASSERT_TRUE(WaitUntil([&] {
    w = Call("GET", "/outgoing-webhooks/" + hook);
    return w.body.at("enabled") == false;
  })) << w.raw.body;
  EXPECT_GE(w.body.at("consecutive_failures").as_int64(), 20);
  // Spooled's names for the same facts.
  EXPECT_EQ(w.body.at("failure_count"), w.body.at("consecutive_failures"));
  EXPECT_EQ(w.body.at("last_status"), "failed");
  EXPECT_EQ(w.body.at("last_triggered_at"), w.body.at("last_delivery_at"));
  EXPECT_NE(std::string(w.body.at("disabled_reason").as_string()).find("HTTP 503"),
            std::string::npos);
  EXPECT_NE(Metrics().find("redrive_webhooks_disabled_total 1\n"), std::string::npos);

  // Re-enabling re-arms it; the pending deliveries then go out.
  receiver_.set_default_status(200);
  const size_t before = receiver_.Requests().size();
  JsonResponse on = Call("PUT", "/outgoing-webhooks/" + hook, json::object{{"enabled", true}});
  ASSERT_EQ(on.status, 200);
  EXPECT_EQ(on.body.at("consecutive_failures"), 0);
  EXPECT_EQ(on.body.at("failure_count"), 0);
  EXPECT_TRUE(on.body.at("disabled_reason").is_null());
  ASSERT_TRUE(receiver_.WaitForRequests(before + 20, 10s));
}

TEST_F(WebhooksTest, TestEndpointSendsASignedTestEventAndRecordsIt) {
  const std::string hook = CreateHook({"job.completed"});
  JsonResponse r = Call("POST", "/outgoing-webhooks/" + hook + "/test", json::object{});
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r.body.at("success"), true);
  EXPECT_EQ(r.body.at("status_code"), 200);
  EXPECT_TRUE(r.body.at("error").is_null());
  // Spooled's TestWebhookResponse reads response_time_ms.
  ASSERT_TRUE(r.body.at("response_time_ms").is_int64()) << r.raw.body;
  EXPECT_EQ(r.body.at("response_time_ms"), r.body.at("duration_ms"));
  ASSERT_EQ(receiver_.Requests().size(), 1u);
  json::object body = VerifiedBody(receiver_.Requests()[0]);
  EXPECT_EQ(body.at("event"), "webhook.test");
  json::array ds = Deliveries(hook);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].at("event"), "webhook.test");
  EXPECT_EQ(ds[0].at("status"), "delivered");

  receiver_.Script({418});
  r = Call("POST", "/outgoing-webhooks/" + hook + "/test", json::object{});
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.body.at("success"), false);
  EXPECT_EQ(r.body.at("status_code"), 418);
  EXPECT_EQ(r.body.at("error"), "HTTP 418");
  EXPECT_EQ(Deliveries(hook)[0].at("status"), "failed");
  EXPECT_EQ(
      Call("POST", "/outgoing-webhooks/0190aaaa-0000-7000-8000-000000000001/test", json::object{})
          .status,
      404);
}

}  // namespace
}  // namespace redrive::e2e
