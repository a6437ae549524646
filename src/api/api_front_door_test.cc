// The API's checks on a request's head (Api::Screen, repeated by Handle):
// cross-origin state changes, the Host check without keys, and the limit on
// failed authentications.
#include <gtest/gtest.h>

#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

using namespace std::chrono_literals;

Request Head(std::string method, std::string target,
             std::map<std::string, std::string> headers = {{"host", "127.0.0.1:7070"}}) {
  Request r;
  r.method = std::move(method);
  r.target = std::move(target);
  r.headers = std::move(headers);
  r.client_address = "192.0.2.1";
  return r;
}

class FrontDoorTest : public ApiTest {
 protected:
  bool Paused(const std::string& queue) {
    Reply r = Get("/api/v1/queues/" + queue);
    return r.status == 200 && r["paused"].as_bool();
  }
  void UseKeys(AuthFailureLimits limits = {}) {
    ApiOptions o;
    o.keys = {{Role::kAdmin, "admin-key"}, {Role::kViewer, "viewer-key"}};
    o.auth_failures = limits;
    o.clock = &clock_;
    Reconfigure(o);
  }
};

// The attack of issue 10: a page on any site posts a "simple" request.
TEST_F(FrontDoorTest, CrossSiteSimplePostIsRefusedWithoutKeys) {
  Enqueue("csrf");
  Request attack = Head("POST", "/api/v1/queues/csrf/pause",
                        {{"host", "127.0.0.1:7070"},
                         {"origin", "http://evil.example"},
                         {"content-type", "text/plain"}});
  ASSERT_TRUE(api_->Screen(attack).has_value());
  EXPECT_EQ(api_->Screen(attack)->status, 403);
  Reply r = Send(attack);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.Code(), "ACCESS_DENIED");
  EXPECT_NE(Str(r["message"]).find("evil.example"), std::string::npos);
  EXPECT_FALSE(Paused("csrf"));

  Request fetch_metadata_only =
      Head("POST", "/api/v1/jobs/dlq/retry",
           {{"host", "127.0.0.1:7070"}, {"sec-fetch-site", "cross-site"}});
  fetch_metadata_only.body = R"({"queue_name":"csrf"})";
  EXPECT_EQ(Send(fetch_metadata_only).status, 403);
}

TEST_F(FrontDoorTest, CurlSdkAndConsoleStateChangesStillWork) {
  Enqueue("ok");
  // curl -X POST …/pause: no Origin, no body, no Content-Type.
  Request curl = Head("POST", "/api/v1/queues/ok/pause");
  EXPECT_FALSE(api_->Screen(curl).has_value());
  EXPECT_EQ(Send(curl).status, 200);
  EXPECT_TRUE(Paused("ok"));
  // Node's fetch (the Spooled SDK): no Origin, Sec-Fetch-Mode: cors.
  Request node = Head("POST", "/api/v1/queues/ok/resume",
                      {{"host", "localhost:7070"}, {"sec-fetch-mode", "cors"}});
  EXPECT_EQ(Send(node).status, 200);
  EXPECT_FALSE(Paused("ok"));
  // The console, same origin.
  Request console = Head("POST", "/api/v1/queues/ok/pause",
                         {{"host", "127.0.0.1:7070"},
                          {"origin", "http://127.0.0.1:7070"},
                          {"sec-fetch-site", "same-origin"}});
  EXPECT_EQ(Send(console).status, 200);
  EXPECT_TRUE(Paused("ok"));
  // Reads are never refused for their origin (the browser keeps the answer
  // from a foreign page anyway).
  EXPECT_EQ(Send(Head("GET", "/api/v1/queues",
                      {{"host", "127.0.0.1:7070"}, {"origin", "http://evil.example"}}))
                .status,
            200);
}

TEST_F(FrontDoorTest, WithoutKeysAnUnexpectedHostIsRefused) {
  Reply r = Send(Head("GET", "/api/v1/queues", {{"host", "rebind.evil.example:7070"}}));
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.Code(), "ACCESS_DENIED");
  EXPECT_NE(Str(r["message"]).find("--allowed-host rebind.evil.example"), std::string::npos)
      << Str(r["message"]);
  EXPECT_EQ(Send(Head("GET", "/api/v1/queues", {{"host", "localhost:7070"}})).status, 200);
  EXPECT_EQ(Send(Head("GET", "/api/v1/queues", {{"host", "[::1]:7070"}})).status, 200);

  ApiOptions o;
  o.allowed_hosts = {"rebind.evil.example"};
  Reconfigure(o);
  EXPECT_EQ(Send(Head("GET", "/api/v1/queues", {{"host", "rebind.evil.example:7070"}})).status,
            200);
}

TEST_F(FrontDoorTest, WithKeysHostIsFreeButCrossOriginChangesAreRefused) {
  UseKeys();
  Request read = Head("GET", "/api/v1/queues",
                      {{"host", "queue.example.com"}, {"authorization", "Bearer admin-key"}});
  EXPECT_EQ(Send(read).status, 200);
  Request change = Head("POST", "/api/v1/queues/q/pause",
                        {{"host", "queue.example.com"},
                         {"origin", "http://evil.example"},
                         {"authorization", "Bearer admin-key"}});
  EXPECT_EQ(Send(change).status, 403);
}

TEST_F(FrontDoorTest, ScreenRefusesUnauthenticatedAndForbiddenRequestsOnTheirHead) {
  UseKeys();
  Request enqueue = Head("POST", "/api/v1/jobs", {{"content-type", "application/json"}});
  std::optional<Response> refusal = api_->Screen(enqueue);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->status, 401);
  enqueue.headers["authorization"] = "Bearer viewer-key";
  refusal = api_->Screen(enqueue);
  ASSERT_TRUE(refusal.has_value());
  EXPECT_EQ(refusal->status, 403);
  enqueue.headers["authorization"] = "Bearer admin-key";
  EXPECT_FALSE(api_->Screen(enqueue).has_value());
  EXPECT_EQ(api_->Screen(Head("GET", "/nowhere"))->status, 401);  // the key comes first
  EXPECT_FALSE(api_->Screen(Head("GET", "/health")).has_value());
}

// With keys configured, a stranger learns nothing about which routes exist:
// an unknown route or a wrong method is 401 until the key is valid. The
// public paths (health, console files, /me) answer as before.
TEST_F(FrontDoorTest, UnknownRoutesNeedAValidKeyBeforeTheyAre404) {
  UseKeys({.max_failures = 0});  // no 429s: this test fails keys on purpose
  auto with_key = [](std::string method, std::string target, std::string key) {
    Request r = Head(std::move(method), std::move(target));
    if (!key.empty()) r.headers["authorization"] = "Bearer " + key;
    return r;
  };
  for (const char* key : {"", "wrong-key"}) {
    for (const auto& [method, target] :
         {std::pair{"GET", "/api/v1/nothing"}, std::pair{"GET", "/nowhere"},
          std::pair{"PATCH", "/api/v1/jobs/abc"}, std::pair{"GET", "/api/v1/organizations"}}) {
      Request r = with_key(method, target, key);
      ASSERT_TRUE(api_->Screen(r).has_value()) << method << " " << target;
      EXPECT_EQ(api_->Screen(r)->status, 401) << method << " " << target << " key " << key;
      Reply reply = Send(r);
      EXPECT_EQ(reply.status, 401) << method << " " << target;
      EXPECT_EQ(reply.Code(), "UNAUTHORIZED");
    }
  }
  // A valid key, of any role, learns the truth.
  EXPECT_EQ(Send(with_key("GET", "/api/v1/nothing", "viewer-key")).status, 404);
  Reply wrong_method = Send(with_key("PATCH", "/api/v1/jobs/abc", "viewer-key"));
  EXPECT_EQ(wrong_method.status, 405);
  EXPECT_EQ(wrong_method.Code(), "METHOD_NOT_ALLOWED");
  // Public paths need no key, even with a wrong method.
  EXPECT_EQ(Send(with_key("POST", "/health", "")).status, 405);
  EXPECT_EQ(Send(with_key("GET", "/console/nope.js", "")).status, 404);
  EXPECT_EQ(Send(with_key("GET", "/api/v1/me", "")).status, 200);
  EXPECT_FALSE(api_->Screen(with_key("GET", "/", "")).has_value());  // the console's page
}

TEST_F(FrontDoorTest, FailedKeysAreRateLimitedPerAddressOnEveryRouteIncludingMe) {
  UseKeys({.max_failures = 3, .window = 60s, .max_clients = 100});
  auto me = [&](std::string key, std::string address = "192.0.2.1") {
    Request r = Head("GET", "/api/v1/me", {{"authorization", "Bearer " + key}});
    r.client_address = std::move(address);
    return Send(std::move(r));
  };
  EXPECT_EQ(me("guess-1").status, 401);
  EXPECT_EQ(me("guess-2").status, 401);
  Request jobs = Head("GET", "/api/v1/jobs", {{"authorization", "Bearer guess-3"}});
  EXPECT_EQ(Send(jobs).status, 401);  // every route counts
  // Over the limit: even the right key is refused, so guesses learn nothing.
  Reply limited = me("admin-key");
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.Code(), "RATE_LIMITED");
  bool has_retry_after = false;
  for (const auto& [name, value] : limited.raw.headers) {
    if (name == "Retry-After") {
      has_retry_after = true;
      EXPECT_EQ(value, "60");
    }
  }
  EXPECT_TRUE(has_retry_after);
  EXPECT_EQ(me("admin-key", "192.0.2.2").status, 200);  // another client is not affected
  // Without a key /me and the public routes still answer.
  EXPECT_EQ(Send(Head("GET", "/api/v1/me")).status, 200);
  EXPECT_EQ(Send(Head("GET", "/health")).status, 200);
  clock_.Advance(std::chrono::seconds(59));
  EXPECT_EQ(me("admin-key").status, 429);
  clock_.Advance(std::chrono::seconds(1));
  Reply back = me("admin-key");
  EXPECT_EQ(back.status, 200);
  EXPECT_EQ(Str(back["role"]), "admin");
}

}  // namespace
}  // namespace redrive::api::testing
