// Stored API keys over the API: the /api-keys routes (who may use them, the
// secret shown once), authentication with stored keys (revoked and expired
// keys refused at once, another node within one refresh), queue scopes, the
// no-key mode, last use, and the audit log.
#include <gmock/gmock.h>

#include <map>

#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

using ::testing::HasSubstr;

class ApiKeysTest : public ApiTest {
 protected:
  void UseBootstrapKeys() {
    ApiOptions o;
    o.keys = {{Role::kAdmin, "boot-admin", "root"},
              {Role::kWorker, "boot-worker"},
              {Role::kViewer, "boot-viewer"}};
    o.clock = &clock_;  // expiry and last use on the test's clock
    Reconfigure(o);
  }
  // Creates a key with `body`; returns the create answer.
  Reply Create(const std::string& body, const std::string& key = "boot-admin") {
    Reply r = Post("/api/v1/api-keys", body, key);
    EXPECT_EQ(r.status, 201) << r.raw.body;
    return r;
  }
  static std::string Secret(const Reply& r) { return Str(r["key"]); }
};

TEST_F(ApiKeysTest, OnlyAdminsManageKeys) {
  UseBootstrapKeys();
  for (const char* key : {"boot-worker", "boot-viewer"}) {
    EXPECT_EQ(Get("/api/v1/api-keys", key).status, 403) << key;
    EXPECT_EQ(Post("/api/v1/api-keys", R"({"name":"x"})", key).status, 403) << key;
    EXPECT_EQ(Do("DELETE", "/api/v1/api-keys/anything", "", key).status, 403) << key;
  }
  EXPECT_EQ(Get("/api/v1/api-keys").status, 401);
  EXPECT_EQ(Get("/api/v1/api-keys", "boot-admin").status, 200);
}

TEST_F(ApiKeysTest, CreateShowsTheSecretOnceAndReadsNever) {
  UseBootstrapKeys();
  Reply created = Create(R"({"name":"ci deploys","role":"viewer"})");
  const std::string secret = Secret(created);
  EXPECT_EQ(secret.rfind("sk_rdk_", 0), 0u) << secret;  // Spooled's SDKs want sk_
  EXPECT_EQ(secret.size(), 7u + 43u);
  EXPECT_EQ(Str(created["name"]), "ci deploys");
  EXPECT_EQ(Str(created["role"]), "viewer");
  EXPECT_EQ(created["is_active"], true);
  EXPECT_EQ(Str(created["key_prefix"]), secret.substr(0, 15));
  const std::string id = Str(created["id"]);

  Reply got = Get("/api/v1/api-keys/" + id, "boot-admin");
  ASSERT_EQ(got.status, 200) << got.raw.body;
  EXPECT_FALSE(got.json.as_object().contains("key"));
  EXPECT_THAT(got.raw.body, ::testing::Not(HasSubstr(secret.substr(12))));
  Reply list = Get("/api/v1/api-keys", "boot-admin");
  ASSERT_EQ(list.json.as_array().size(), 1u);
  EXPECT_EQ(Str(list.json.as_array()[0].at("id")), id);
  EXPECT_THAT(list.raw.body, ::testing::Not(HasSubstr(secret.substr(12))));
  EXPECT_EQ(Get("/api/v1/api-keys/nope", "boot-admin").status, 404);
}

TEST_F(ApiKeysTest, StoredKeyAuthenticatesWithItsRole) {
  UseBootstrapKeys();
  const std::string viewer = Secret(Create(R"({"name":"dash","role":"viewer"})"));
  const std::string admin = Secret(Create(R"({"name":"ops"})"));  // role defaults to admin
  EXPECT_EQ(Get("/api/v1/queues", viewer).status, 200);
  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{}})", viewer).status, 403);
  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{}})", admin).status, 201);
  EXPECT_EQ(Get("/api/v1/api-keys", admin).status, 200);
  EXPECT_EQ(Get("/api/v1/queues", "rdk_notakey").status, 401);
}

TEST_F(ApiKeysTest, RevokedKeyIsRefusedAtOnceAndCanBeReinstated) {
  UseBootstrapKeys();
  Reply created = Create(R"({"name":"temp"})");
  const std::string secret = Secret(created);
  const std::string id = Str(created["id"]);
  EXPECT_EQ(Get("/api/v1/queues", secret).status, 200);
  EXPECT_EQ(Do("DELETE", "/api/v1/api-keys/" + id, "", "boot-admin").status, 204);
  Reply refused = Get("/api/v1/queues", secret);
  EXPECT_EQ(refused.status, 401);
  EXPECT_THAT(Str(refused["message"]), HasSubstr("revoked"));
  EXPECT_EQ(Get("/api/v1/api-keys/" + id, "boot-admin")["is_active"], false);
  Reply back = Do("PUT", "/api/v1/api-keys/" + id, R"({"is_active":true})", "boot-admin");
  EXPECT_EQ(back.status, 200) << back.raw.body;
  EXPECT_EQ(Get("/api/v1/queues", secret).status, 200);
}

TEST_F(ApiKeysTest, ExpiredKeyIsRefused) {
  UseBootstrapKeys();
  clock_.Set(InstantFromMicros(1'700'000'000'000'000));
  Reply created = Create(R"({"name":"short","expires_at":"2023-11-14T22:14:00Z"})");
  const std::string secret = Secret(created);
  EXPECT_EQ(Get("/api/v1/queues", secret).status, 200);
  clock_.Advance(std::chrono::minutes(2));
  Reply refused = Get("/api/v1/queues", secret);
  EXPECT_EQ(refused.status, 401);
  EXPECT_THAT(Str(refused["message"]), HasSubstr("expired"));
  // An expiry already past is refused at creation.
  EXPECT_EQ(
      Post("/api/v1/api-keys", R"({"name":"x","expires_at":"2020-01-01T00:00:00Z"})", "boot-admin")
          .Field(),
      "expires_at");
}

TEST_F(ApiKeysTest, ScopedWorkerKeyUsesOnlyItsQueues) {
  UseBootstrapKeys();
  Reply created = Create(R"({"name":"mailer","queues":["emails"]})");
  EXPECT_EQ(Str(created["role"]), "worker");  // a scoped key is a worker key
  const std::string key = Secret(created);
  Reply other_job = Post("/api/v1/jobs", R"({"queue_name":"reports","payload":{}})", "boot-admin");
  ASSERT_EQ(other_job.status, 201);
  const std::string other = Str(other_job["id"]);

  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"emails","payload":{}})", key).status, 201);
  Reply denied = Post("/api/v1/jobs", R"({"queue_name":"reports","payload":{}})", key);
  EXPECT_EQ(denied.status, 403);
  EXPECT_THAT(Str(denied["message"]), HasSubstr("emails"));
  EXPECT_EQ(
      Post("/api/v1/jobs/bulk", R"({"queue_name":"reports","jobs":[{"payload":{}}]})", key).status,
      403);
  EXPECT_EQ(Post("/api/v1/jobs/claim", R"({"queue_name":"reports","worker_id":"w"})", key).status,
            403);
  Reply claimed = Post("/api/v1/jobs/claim", R"({"queue_name":"emails","worker_id":"w"})", key);
  EXPECT_EQ(claimed.status, 200) << claimed.raw.body;
  ASSERT_EQ(claimed["jobs"].as_array().size(), 1u);
  const std::string mine = Str(claimed["jobs"].as_array()[0].at("id"));
  EXPECT_EQ(Get("/api/v1/jobs/" + mine, key).status, 200);
  Reply hidden = Get("/api/v1/jobs/" + other, key);
  EXPECT_EQ(hidden.status, 403);

  // Only worker keys take a scope.
  EXPECT_EQ(Post("/api/v1/api-keys", R"({"name":"x","role":"admin","queues":["a"]})", "boot-admin")
                .Field(),
            "queues");
}

// The lease routes name a job, not a queue: a scoped key that learnt another
// queue's job and its holder (worker_id, even lease_id) still cannot
// heartbeat, complete, fail, snooze or ack it, and the job stays leased.
TEST_F(ApiKeysTest, ScopedWorkerKeyCannotActOnAnotherQueuesLease) {
  UseBootstrapKeys();
  const std::string key = Secret(Create(R"({"name":"mailer","queues":["emails"]})"));
  ASSERT_EQ(Post("/api/v1/jobs", R"({"queue_name":"reports","payload":{}})", "boot-admin").status,
            201);
  Reply held =
      Post("/api/v1/jobs/claim", R"({"queue_name":"reports","worker_id":"w"})", "boot-worker");
  ASSERT_EQ(held["jobs"].as_array().size(), 1u) << held.raw.body;
  const std::string job = Str(held["jobs"].as_array()[0].at("id"));
  const std::string lease = Str(held["jobs"].as_array()[0].at("lease_id"));
  const std::string holder = R"("worker_id":"w","lease_id":")" + lease + R"(")";

  const std::map<std::string, std::string> routes = {
      {"/heartbeat", "{" + holder + R"(,"lease_duration_secs":60})"},
      {"/complete", "{" + holder + "}"},
      {"/fail", "{" + holder + R"(,"error":"x"})"},
      {"/snooze", "{" + holder + R"(,"delay_ms":1000})"},
  };
  for (const auto& [route, body] : routes) {
    Reply r = Post("/api/v1/jobs/" + job + route, body, key);
    EXPECT_EQ(r.status, 403) << route << ": " << r.raw.body;
    EXPECT_EQ(r.Code(), "ACCESS_DENIED") << route;
    EXPECT_THAT(Str(r["message"]), HasSubstr("emails")) << route;
    // Without lease_id (Spooled's SDK): the same.
    Reply loose = Post("/api/v1/jobs/" + job + route,
                       route == "/fail"        ? R"({"worker_id":"w","error":"x"})"
                       : route == "/heartbeat" ? R"({"worker_id":"w","lease_duration_secs":60})"
                                               : R"({"worker_id":"w"})",
                       key);
    EXPECT_EQ(loose.status, route == "/snooze" ? 400 : 403) << route << ": " << loose.raw.body;
  }
  const std::string ack =
      R"({"worker_id":"w","acks":[{"id":")" + job + R"(","lease_id":")" + lease + R"("}]})";
  Reply acked = Post("/api/v1/jobs/ack", ack, key);
  ASSERT_EQ(acked.status, 200) << acked.raw.body;
  EXPECT_EQ(Str(acked["results"].as_array()[0].at("code")), "ACCESS_DENIED") << acked.raw.body;
  Reply with_claim = Post("/api/v1/jobs/claim",
                          R"({"queue_name":"emails","worker_id":"w","acks":[{"id":")" + job +
                              R"(","lease_id":")" + lease + R"("}]})",
                          key);
  ASSERT_EQ(with_claim.status, 200) << with_claim.raw.body;
  EXPECT_EQ(Str(with_claim["results"].as_array()[0].at("code")), "ACCESS_DENIED");

  Reply still = Get("/api/v1/jobs/" + job, "boot-admin");
  EXPECT_EQ(Str(still["status"]), "processing") << still.raw.body;
  EXPECT_EQ(Str(still["lease_id"]), lease);
  // Its own holder still completes it.
  EXPECT_EQ(Post("/api/v1/jobs/" + job + "/complete", "{" + holder + "}", "boot-worker").status,
            200);
}

TEST_F(ApiKeysTest, BadBodiesNameTheirField) {
  UseBootstrapKeys();
  auto field = [&](const std::string& body) {
    return Post("/api/v1/api-keys", body, "boot-admin").Field();
  };
  EXPECT_EQ(field(R"({})"), "name");
  EXPECT_EQ(field(R"({"name":""})"), "name");
  EXPECT_EQ(field(R"({"name":"x","role":"root"})"), "role");
  EXPECT_EQ(field(R"({"name":"x","queues":["bad name"]})"), "queues[0]");
  EXPECT_EQ(field(R"({"name":"x","rate_limit":100})"), "rate_limit");
  EXPECT_EQ(field(R"({"name":"x","expires_at":"tomorrow"})"), "expires_at");
  Reply created = Create(R"({"name":"k"})");
  EXPECT_EQ(
      Do("PUT", "/api/v1/api-keys/" + Str(created["id"]), R"({"is_active":"no"})", "boot-admin")
          .Field(),
      "is_active");
}

TEST_F(ApiKeysTest, CreatingAKeyEndsTheNoKeyMode) {
  // No bootstrap keys: the loopback no-key mode.
  EXPECT_EQ(Get("/api/v1/queues").status, 200);
  EXPECT_EQ(Get("/api/v1/me")["auth_required"], false);
  const std::string secret = Secret(Create(R"({"name":"first"})", ""));
  EXPECT_EQ(Get("/api/v1/queues").status, 401);
  EXPECT_EQ(Get("/api/v1/me")["auth_required"], true);
  EXPECT_EQ(Get("/api/v1/queues", secret).status, 200);
  // A node started afterwards (a new Api over the same store) requires keys too.
  Reconfigure(ApiOptions{});
  EXPECT_EQ(Get("/api/v1/queues").status, 401);
  EXPECT_EQ(Get("/api/v1/queues", secret).status, 200);
}

TEST_F(ApiKeysTest, AnotherNodeRefusesARevokedKeyAfterItsRefresh) {
  UseBootstrapKeys();
  Reply created = Create(R"({"name":"shared"})");
  const std::string secret = Secret(created);
  // A second node: its own Api (and key cache) over the same store.
  Api other(*engine_, options_);
  auto on_other = [&](const std::string& key) {
    Request r;
    r.method = "GET";
    r.target = "/api/v1/queues";
    r.headers["authorization"] = "Bearer " + key;
    std::promise<int> status;
    other.Handle(std::move(r), [&status](Response resp) { status.set_value(resp.status); });
    return status.get_future().get();
  };
  EXPECT_EQ(on_other(secret), 200);
  EXPECT_EQ(Do("DELETE", "/api/v1/api-keys/" + Str(created["id"]), "", "boot-admin").status, 204);
  EXPECT_EQ(Get("/api/v1/queues", secret).status, 401);  // this node: at once
  EXPECT_EQ(on_other(secret), 200);                      // the other: until it refreshes
  ASSERT_TRUE(other.RefreshStoredKeys().ok());
  EXPECT_EQ(on_other(secret), 401);
}

TEST_F(ApiKeysTest, LastUseIsWrittenByTheRefreshNotPerRequest) {
  UseBootstrapKeys();
  clock_.Set(InstantFromMicros(1'700'000'000'000'000));
  Reply created = Create(R"({"name":"busy"})");
  const std::string id = Str(created["id"]);
  const std::string secret = Secret(created);
  EXPECT_TRUE(created["last_used"].is_null());
  clock_.Advance(std::chrono::seconds(5));
  EXPECT_EQ(Get("/api/v1/queues", secret).status, 200);
  EXPECT_TRUE(Get("/api/v1/api-keys/" + id, "boot-admin")["last_used"].is_null());
  ASSERT_TRUE(api_->RefreshStoredKeys().ok());
  EXPECT_EQ(Str(Get("/api/v1/api-keys/" + id, "boot-admin")["last_used"]),
            "2023-11-14T22:13:25.000Z");
}

TEST_F(ApiKeysTest, AuditNamesStoredKeysAndKeepsNoSecretForReplay) {
  UseBootstrapKeys();
  Request r;
  r.method = "POST";
  r.target = "/api/v1/api-keys";
  r.body = R"({"name":"ops"})";
  r.headers["content-type"] = "application/json";
  r.headers["authorization"] = "Bearer boot-admin";
  r.headers["idempotency-key"] = "create-ops-1";
  Reply first = Send(r);
  ASSERT_EQ(first.status, 201) << first.raw.body;
  const std::string secret = Secret(first);
  Reply replay = Send(r);
  EXPECT_EQ(replay.status, 201);
  EXPECT_TRUE(replay["key"].is_null());
  EXPECT_EQ(Str(replay["id"]), Str(first["id"]));

  // The stored key changes something: the audit log names it by its name.
  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{}})", secret).status, 201);
  EXPECT_EQ(Post("/api/v1/queues/q/pause", "{}", secret).status, 200);
  Reply audit = Get("/api/v1/audit", "boot-admin");
  ASSERT_EQ(audit.status, 200) << audit.raw.body;
  std::map<std::string, boost::json::object> by_action;
  for (const auto& e : audit["entries"].as_array()) by_action[Str(e.at("action"))] = e.as_object();
  ASSERT_EQ(by_action.count("queue.pause"), 1u);
  ASSERT_EQ(by_action.count("api_key.create"), 1u);
  EXPECT_EQ(Str(by_action["queue.pause"].at("actor")), "ops");
  EXPECT_EQ(Str(by_action["api_key.create"].at("actor")), "root");
  EXPECT_EQ(Str(by_action["api_key.create"].at("targets").as_array()[0]),
            "api_key:" + Str(first["id"]));
}

}  // namespace
}  // namespace redrive::api::testing
