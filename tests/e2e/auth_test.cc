// API keys and roles against the real binary: admin, worker, viewer.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;

class AuthTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerOptions o;
    // Keys through the environment twin (flags, when given, replace it).
    o.env = {{"REDRIVE_API_KEYS", "admin:adm-key,worker:wrk-key,viewer:view-key"}};
    server_ = new ServerProcess(o);
    ASSERT_TRUE(server_->Start());
  }
  static void TearDownTestSuite() {
    if (server_) {
      EXPECT_EQ(server_->Stop(), 0);
    }
    delete server_;
  }
  JsonResponse As(const std::string& key, std::string_view method, const std::string& path,
                  const json::value& body = nullptr) {
    HttpClient c = server_->Client();
    c.set_bearer_token(key);
    if (body.is_null()) return c.JsonRequest(method, "/api/v1" + path);
    return c.JsonRequest(method, "/api/v1" + path, body);
  }
  static ServerProcess* server_;
};
ServerProcess* AuthTest::server_ = nullptr;

TEST_F(AuthTest, MissingOrUnknownKeyIs401) {
  auto none = As("", "GET", "/jobs");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(none.body.at("code"), "UNAUTHORIZED");
  EXPECT_EQ(As("nope", "GET", "/jobs").status, 401);
  // Health needs no key.
  EXPECT_EQ(server_->Client().Get("/health").status, 200);
}

// The key is checked before the route: strangers cannot map the API.
TEST_F(AuthTest, UnknownRouteIs401WithoutAValidKeyAnd404WithOne) {
  for (const char* key : {"", "nope"}) {
    auto r = As(key, "GET", "/no-such-route");
    EXPECT_EQ(r.status, 401) << key;
    EXPECT_EQ(r.body.at("code"), "UNAUTHORIZED");
    EXPECT_EQ(As(key, "POST", "/billing/portal", json::object{}).status, 401) << key;
  }
  auto found = As("view-key", "GET", "/no-such-route");
  EXPECT_EQ(found.status, 404);
  EXPECT_EQ(found.body.at("code"), "NOT_FOUND");
  auto billing = As("view-key", "POST", "/billing/portal", json::object{});
  EXPECT_EQ(billing.status, 404);
  EXPECT_NE(std::string(billing.body.at("message").as_string()).find("out of scope"),
            std::string::npos);
}

TEST_F(AuthTest, WorkerCanProduceAndConsumeButNotOperate) {
  auto enq = As("wrk-key", "POST", "/jobs",
                json::object{{"queue_name", "auth-w"}, {"payload", {{"secret", 1}}}});
  ASSERT_EQ(enq.status, 201) << enq.raw.body;
  const std::string id(enq.body.at("id").as_string());
  auto claim = As("wrk-key", "POST", "/jobs/claim",
                  json::object{{"queue_name", "auth-w"}, {"worker_id", "w"}});
  ASSERT_EQ(claim.status, 200);
  EXPECT_EQ(As("wrk-key", "GET", "/jobs/" + id).status, 200);
  auto purge = As("wrk-key", "POST", "/jobs/dlq/purge", json::object{{"confirm", true}});
  EXPECT_EQ(purge.status, 403);
  EXPECT_EQ(purge.body.at("code"), "ACCESS_DENIED");
  EXPECT_EQ(As("wrk-key", "POST", "/queues/auth-w/pause", json::object{}).status, 403);
  EXPECT_EQ(As("wrk-key", "DELETE", "/jobs/" + id).status, 403);
}

TEST_F(AuthTest, ViewerReadsWithoutPayloadsAndCannotWrite) {
  auto enq = As("adm-key", "POST", "/jobs",
                json::object{{"queue_name", "auth-v"}, {"payload", {{"card", "4242"}}}});
  ASSERT_EQ(enq.status, 201);
  const std::string id(enq.body.at("id").as_string());
  auto job = As("view-key", "GET", "/jobs/" + id);
  ASSERT_EQ(job.status, 200) << job.raw.body;
  EXPECT_EQ(job.body.at("status"), "pending");
  EXPECT_EQ(job.raw.body.find("4242"), std::string::npos) << job.raw.body;
  EXPECT_EQ(As("view-key", "GET", "/queues").status, 200);
  // The DLQ's summary is a read, like the listing; a worker key may not read it.
  EXPECT_EQ(As("view-key", "GET", "/jobs/dlq/summary").status, 200);
  EXPECT_EQ(As("adm-key", "GET", "/jobs/dlq/summary").status, 200);
  EXPECT_EQ(As("wrk-key", "GET", "/jobs/dlq/summary").status, 403);
  auto write =
      As("view-key", "POST", "/jobs", json::object{{"queue_name", "auth-v"}, {"payload", 1}});
  EXPECT_EQ(write.status, 403);
  EXPECT_EQ(As("view-key", "POST", "/jobs/claim",
               json::object{{"queue_name", "auth-v"}, {"worker_id", "w"}})
                .status,
            403);
  // The admin sees the payload.
  auto full = As("adm-key", "GET", "/jobs/" + id);
  EXPECT_NE(full.raw.body.find("4242"), std::string::npos);
}

TEST(AuthFlagsTest, ApiKeyFlagsConfigureRoles) {
  ServerOptions o;
  o.extra_args = {"--api-key", "admin:flag-admin", "--api-key", "viewer:flag-viewer"};
  ServerProcess server(o);
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  EXPECT_EQ(c.Get("/api/v1/queues").status, 401);
  c.set_bearer_token("flag-viewer");
  EXPECT_EQ(c.Get("/api/v1/queues").status, 200);
  EXPECT_EQ(c.JsonRequest("POST", "/api/v1/queues/x/pause", json::object{}).status, 403);
  c.set_bearer_token("flag-admin");
  EXPECT_EQ(
      c.JsonRequest("PUT", "/api/v1/queues/x/config", json::object{{"max_retries", 1}}).status,
      200);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace redrive::e2e
