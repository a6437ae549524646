// /outgoing-webhooks through Api::Handle: validation, the secret rule, the
// target rules, roles and what viewers see.
#include <mutex>

#include "api/api_test_util.h"
#include "core/limits.h"
#include "engine/webhooks/sender.h"

namespace redrive::api::testing {
namespace {

constexpr char kValid[] =
    R"({"name":"ops","url":"https://hooks.example.com/redrive","events":["job.failed"]})";

TEST_F(ApiTest, CreateAnswers201WithTheSecretOnceAndNeverAgain) {
  Reply created = Post("/api/v1/outgoing-webhooks", kValid);
  ASSERT_EQ(created.status, 201) << boost::json::serialize(created.json);
  EXPECT_EQ(created["name"], "ops");
  EXPECT_EQ(created["enabled"], true);
  EXPECT_EQ(created["format"], "json");
  EXPECT_EQ(created["has_secret"], true);
  EXPECT_TRUE(created["secret"].as_string().starts_with("whsec_"));
  // Spooled's OutgoingWebhook fields, beside Redrive's.
  EXPECT_EQ(created["organization_id"], "default");
  EXPECT_EQ(created["failure_count"], 0);
  EXPECT_TRUE(created["last_triggered_at"].is_null());
  EXPECT_TRUE(created["last_status"].is_null());
  const std::string id(created["id"].as_string());

  Reply got = Get("/api/v1/outgoing-webhooks/" + id);
  ASSERT_EQ(got.status, 200);
  EXPECT_FALSE(got.json.as_object().contains("secret"));
  EXPECT_EQ(got["has_secret"], true);
  Reply list = Get("/api/v1/outgoing-webhooks");
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.json.as_array().size(), 1u);
  EXPECT_FALSE(list.json.as_array()[0].as_object().contains("secret"));
}

TEST_F(ApiTest, CreateKeepsAGivenSecret) {
  Reply created =
      Post("/api/v1/outgoing-webhooks",
           R"({"name":"a","url":"http://hooks.example.com:1/x","events":["job.created"],)"
           R"("secret":"mine","format":"slack","enabled":false})");
  ASSERT_EQ(created.status, 201);
  EXPECT_EQ(created["secret"], "mine");
  EXPECT_EQ(created["format"], "slack");
  EXPECT_EQ(created["enabled"], false);
}

// signature_format [ext]: Redrive's headers by default, Spooled's on request.
TEST_F(ApiTest, SignatureFormatIsRedriveByDefaultAndSpooledOnRequest) {
  Reply plain = Post("/api/v1/outgoing-webhooks", kValid);
  ASSERT_EQ(plain.status, 201);
  EXPECT_EQ(plain["signature_format"], "redrive");
  Reply spooled = Post("/api/v1/outgoing-webhooks",
                       R"({"name":"s","url":"https://hooks.example.com/s","events":["job.failed"],)"
                       R"("signature_format":"spooled"})");
  ASSERT_EQ(spooled.status, 201) << spooled.raw.body;
  EXPECT_EQ(spooled["signature_format"], "spooled");
  const std::string path = "/api/v1/outgoing-webhooks/" + Str(spooled["id"]);
  EXPECT_EQ(Get(path)["signature_format"], "spooled");
  Reply back = Do("PUT", path, R"({"signature_format":"redrive"})");
  ASSERT_EQ(back.status, 200);
  EXPECT_EQ(back["signature_format"], "redrive");
  EXPECT_EQ(Do("PUT", path, R"({"signature_format":"stripe"})").Field(), "signature_format");
  EXPECT_EQ(Get(path)["signature_format"], "redrive");
}

// The chat formats: discord and teams beside slack, on create and on update;
// an unknown one is refused naming the formats there are.
TEST_F(ApiTest, DiscordAndTeamsFormatsAreAcceptedAndKept) {
  Reply created = Post("/api/v1/outgoing-webhooks",
                       R"({"name":"d","url":"https://discord.com/api/webhooks/1/x",)"
                       R"("events":["job.deadlettered"],"format":"discord"})");
  ASSERT_EQ(created.status, 201) << created.raw.body;
  EXPECT_EQ(created["format"], "discord");
  const std::string path = "/api/v1/outgoing-webhooks/" + Str(created["id"]);
  Reply teams = Do("PUT", path, R"({"format":"teams"})");
  ASSERT_EQ(teams.status, 200) << teams.raw.body;
  EXPECT_EQ(Get(path)["format"], "teams");
  Reply bad = Do("PUT", path, R"({"format":"irc"})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.Field(), "format");
  EXPECT_NE(bad.raw.body.find(R"(\"discord\", \"teams\")"), std::string::npos) << bad.raw.body;
  EXPECT_EQ(Get(path)["format"], "teams");
}

struct BadBody {
  const char* body;
  const char* field;
};

TEST_F(ApiTest, InvalidWebhookBodiesNameTheField) {
  const BadBody cases[] = {
      {R"({"url":"http://a/","events":["job.failed"]})", "name"},
      {R"({"name":"","url":"http://a/","events":["job.failed"]})", "name"},
      {R"({"name":5,"url":"http://a/","events":["job.failed"]})", "name"},
      {R"({"name":"n","events":["job.failed"]})", "url"},
      {R"({"name":"n","url":"ftp://a/","events":["job.failed"]})", "url"},
      {R"({"name":"n","url":"/relative","events":["job.failed"]})", "url"},
      {R"({"name":"n","url":"not a url","events":["job.failed"]})", "url"},
      {R"({"name":"n","url":"http://a/"})", "events"},
      {R"({"name":"n","url":"http://a/","events":[]})", "events"},
      {R"({"name":"n","url":"http://a/","events":["job.exploded"]})", "events"},
      {R"({"name":"n","url":"http://a/","events":[1]})", "events"},
      {R"({"name":"n","url":"http://a/","events":"job.failed"})", "events"},
      {R"({"name":"n","url":"http://a/","events":["job.failed"],"enabled":"yes"})", "enabled"},
      {R"({"name":"n","url":"http://a/","events":["job.failed"],"format":"xml"})", "format"},
      {R"({"name":"n","url":"http://a/","events":["job.failed"],"secret":""})", "secret"},
  };
  for (const BadBody& c : cases) {
    Reply r = Post("/api/v1/outgoing-webhooks", c.body);
    ASSERT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(r.Code(), "VALIDATION_ERROR") << c.body;
    EXPECT_EQ(r.Field(), c.field) << c.body;
  }
  EXPECT_EQ(Get("/api/v1/outgoing-webhooks").json.as_array().size(), 0u);
}

TEST_F(ApiTest, UpdateChangesOnlyGivenFieldsAndUnknownIdsAre404) {
  Reply created = Post("/api/v1/outgoing-webhooks", kValid);
  const std::string path = "/api/v1/outgoing-webhooks/" + std::string(created["id"].as_string());
  Reply r = Do("PUT", path, R"({"events":["job.completed","queue.paused"],"enabled":false})");
  ASSERT_EQ(r.status, 200) << boost::json::serialize(r.json);
  EXPECT_EQ(r["name"], "ops");
  EXPECT_EQ(r["url"], "https://hooks.example.com/redrive");
  EXPECT_EQ(r["enabled"], false);
  EXPECT_EQ(r["events"].as_array().size(), 2u);
  EXPECT_EQ(Do("PUT", path, R"({"url":"nope"})").Field(), "url");

  const std::string missing = "/api/v1/outgoing-webhooks/0190aaaa-0000-7000-8000-000000000001";
  EXPECT_EQ(Get(missing).status, 404);
  EXPECT_EQ(Do("PUT", missing, R"({"name":"x"})").status, 404);
  EXPECT_EQ(Do("DELETE", missing).status, 404);
  EXPECT_EQ(Get(missing + "/deliveries").status, 404);
  EXPECT_EQ(Get(path + "/deliveries?status=lost").Field(), "status");
  EXPECT_EQ(Get(path + "/deliveries?limit=-1").Field(), "limit");
  EXPECT_EQ(Get(path + "/deliveries?limit=1000").status, 200);  // capped at 100
  EXPECT_EQ(Get(path + "/deliveries").json.as_array().size(), 0u);

  EXPECT_EQ(Do("DELETE", path).status, 204);
  EXPECT_EQ(Get(path).status, 404);
}

TEST_F(ApiTest, WebhookRoutesFollowTheRoles) {
  ApiOptions options;
  options.keys = {{Role::kAdmin, "adm"}, {Role::kWorker, "wrk"}, {Role::kViewer, "view"}};
  Reconfigure(options);
  Reply created = Post("/api/v1/outgoing-webhooks", kValid, "adm");
  ASSERT_EQ(created.status, 201);
  const std::string path = "/api/v1/outgoing-webhooks/" + std::string(created["id"].as_string());
  EXPECT_EQ(Get("/api/v1/outgoing-webhooks", "view").status, 200);
  EXPECT_EQ(Get(path, "view").status, 200);
  EXPECT_EQ(Get(path + "/deliveries", "view").status, 200);
  EXPECT_EQ(Post("/api/v1/outgoing-webhooks", kValid, "view").status, 403);
  EXPECT_EQ(Do("DELETE", path, "", "view").status, 403);
  EXPECT_EQ(Post(path + "/test", "", "view").status, 403);
  EXPECT_EQ(Get("/api/v1/outgoing-webhooks", "wrk").status, 403);
  EXPECT_EQ(Post("/api/v1/outgoing-webhooks", kValid, "wrk").status, 403);
  EXPECT_EQ(Get("/api/v1/outgoing-webhooks").status, 401);
}

std::string CreateBody(const std::string& url) {
  return R"({"name":"n","url":")" + url + R"(","events":["job.created"]})";
}

TEST_F(ApiTest, LiteralNonGlobalTargetsAreRefusedUnlessAllowed) {
  const char* refused[] = {
      "http://127.0.0.1/",
      "http://127.0.0.1:8080/hook",
      "http://127.1/",
      "http://2130706433/",
      "http://0x7f000001/",
      "http://0177.0.0.1/",
      "http://0.0.0.0/",
      "http://0/",
      "http://localhost:9000/",
      "http://LOCALHOST./",
      "http://app.localhost/",
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "https://192.168.1.10/",
      "http://100.64.0.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://169.254.43518/",
      "http://224.0.0.1/",
      "http://255.255.255.255/",
      "http://[::1]/",
      "http://[::]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[fd00::1]/",
      "http://[fe80::1]/",
      "http://[ff02::1]/",
      "http://127%2E0%2E0%2E1/",
  };
  for (const char* url : refused) {
    Reply r = Post("/api/v1/outgoing-webhooks", CreateBody(url));
    ASSERT_EQ(r.status, 400) << url;
    EXPECT_EQ(r.Code(), "VALIDATION_ERROR") << url;
    EXPECT_EQ(r.Field(), "url") << url;
  }
  EXPECT_EQ(Get("/api/v1/outgoing-webhooks").json.as_array().size(), 0u);
  // Global literals and names pass (names are checked when sent).
  for (const char* url : {"http://8.8.8.8/", "http://[2606:4700:4700::1111]/",
                          "https://hooks.example.com/x", "http://127.example.com/"}) {
    EXPECT_EQ(Post("/api/v1/outgoing-webhooks", CreateBody(url)).status, 201) << url;
  }
  Reply created = Post("/api/v1/outgoing-webhooks", kValid);
  const std::string path = "/api/v1/outgoing-webhooks/" + Str(created["id"]);
  Reply put = Do("PUT", path, R"({"url":"http://169.254.169.254/"})");
  EXPECT_EQ(put.status, 400);
  EXPECT_EQ(put.Field(), "url");
  EXPECT_EQ(Get(path)["url"], "https://hooks.example.com/redrive");

  ApiOptions allow;
  allow.webhook_allow_private_targets = true;
  Reconfigure(allow);
  for (const char* url : refused) {
    EXPECT_EQ(Post("/api/v1/outgoing-webhooks", CreateBody(url)).status, 201) << url;
  }
  EXPECT_EQ(Do("PUT", path, R"({"url":"http://127.0.0.1:1/"})").status, 200);
}

constexpr char kSlackUrl[] = "https://bot:pw@hooks.slack.com/services/T0/B0/s3cr3tT0k3n?x=1";

TEST_F(ApiTest, ViewersSeeWebhookUrlsRedactedAndAdminsInFull) {
  ApiOptions options;
  options.keys = {{Role::kAdmin, "adm"}, {Role::kViewer, "view"}};
  Reconfigure(options);
  Reply created = Post("/api/v1/outgoing-webhooks", CreateBody(kSlackUrl), "adm");
  ASSERT_EQ(created.status, 201) << created.raw.body;
  EXPECT_EQ(created["url"], kSlackUrl);
  const std::string path = "/api/v1/outgoing-webhooks/" + Str(created["id"]);
  Reply updated = Do("PUT", path, R"({"name":"renamed"})", "adm");
  EXPECT_EQ(updated["url"], kSlackUrl);

  EXPECT_EQ(Get(path, "adm")["url"], kSlackUrl);
  EXPECT_EQ(Get("/api/v1/outgoing-webhooks", "adm").json.at(0).at("url"), kSlackUrl);

  Reply one = Get(path, "view");
  ASSERT_EQ(one.status, 200);
  EXPECT_EQ(one["url"], "https://hooks.slack.com/…");
  Reply list = Get("/api/v1/outgoing-webhooks", "view");
  ASSERT_EQ(list.status, 200);
  EXPECT_EQ(list.json.at(0).at("url"), "https://hooks.slack.com/…");
  for (const Reply* r : {&one, &list}) {
    EXPECT_EQ(r->raw.body.find("s3cr3tT0k3n"), std::string::npos) << r->raw.body;
    EXPECT_EQ(r->raw.body.find("pw@"), std::string::npos) << r->raw.body;
  }
  // Same fields for both roles.
  EXPECT_EQ(one.json.as_object().size(), Get(path, "adm").json.as_object().size());
}

// Answers every POST with the error it is given.
class ScriptedSender final : public engine::WebhookSender {
 public:
  AttemptResult Send(const engine::OutgoingPost&, Instant) override {
    std::lock_guard lock(mu_);
    return next_;
  }
  void Answer(AttemptResult r) {
    std::lock_guard lock(mu_);
    next_ = std::move(r);
  }

 private:
  std::mutex mu_;
  AttemptResult next_;
};

TEST_F(ApiTest, DeliveryErrorsAreDetailedForAdminsAndAClassForViewers) {
  auto sender = std::make_shared<ScriptedSender>();
  sender->Answer({false, std::nullopt, "Connection refused", std::chrono::milliseconds(1)});
  api_.reset();
  engine_.reset();
  engine::EngineOptions engine_options;
  engine_options.webhook_sender = sender;
  engine_options.webhooks.run_threads = false;
  engine_ = std::make_unique<engine::Engine>(*store_, clock_, random_, engine_options);
  ASSERT_TRUE(engine_->Start().ok());
  ApiOptions options;
  options.keys = {{Role::kAdmin, "adm"}, {Role::kViewer, "view"}};
  Reconfigure(options);

  Reply created = Post("/api/v1/outgoing-webhooks", CreateBody(kSlackUrl), "adm");
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string path = "/api/v1/outgoing-webhooks/" + Str(created["id"]);
  ASSERT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{}})", "adm").status, 201);
  ASSERT_EQ(engine_->RunWebhooksOnce(), 1);

  Reply admin = Get(path + "/deliveries", "adm");
  ASSERT_EQ(admin.status, 200);
  EXPECT_EQ(admin.json.at(0).at("last_error"), "Connection refused");
  Reply viewer = Get(path + "/deliveries", "view");
  ASSERT_EQ(viewer.status, 200);
  EXPECT_EQ(viewer.json.at(0).at("last_error"), "delivery failed");
  EXPECT_EQ(viewer.raw.body.find("refused"), std::string::npos) << viewer.raw.body;

  // A receiver's answer is no secret: its status shows for both.
  sender->Answer({false, 503, "HTTP 503", std::chrono::milliseconds(1)});
  clock_.Advance(std::chrono::hours(2));
  ASSERT_EQ(engine_->RunWebhooksOnce(), 1);
  EXPECT_EQ(Get(path + "/deliveries", "view").json.at(0).at("last_error"), "HTTP 503");
  EXPECT_EQ(Get(path + "/deliveries", "adm").json.at(0).at("last_error"), "HTTP 503");
}

// Each job event writes an outbox row per webhook in its own transaction,
// so the count of webhooks is bounded (--max-webhooks): the fuzzer once made
// 735 of them, and a sweep of expired leases then held every write for
// seconds.
TEST_F(ApiTest, CreatingAWebhookPastTheLimitIs409UntilOneIsDeleted) {
  api_.reset();
  engine_.reset();
  engine::EngineOptions engine_options;
  engine_options.max_webhooks = 2;
  engine_ = std::make_unique<engine::Engine>(*store_, clock_, random_, engine_options);
  ASSERT_TRUE(engine_->Start().ok());
  Reconfigure(ApiOptions{});

  Reply first = Post("/api/v1/outgoing-webhooks", kValid);
  ASSERT_EQ(first.status, 201) << first.raw.body;
  ASSERT_EQ(Post("/api/v1/outgoing-webhooks", kValid).status, 201);
  Reply third = Post("/api/v1/outgoing-webhooks", kValid);
  EXPECT_EQ(third.status, 409) << third.raw.body;
  EXPECT_EQ(third["code"], "CONFLICT");
  EXPECT_EQ(Str(third["message"]), WebhookLimitMessage(2));
  EXPECT_EQ(Get("/api/v1/outgoing-webhooks").json.as_array().size(), 2u);

  ASSERT_EQ(Do("DELETE", "/api/v1/outgoing-webhooks/" + Str(first["id"])).status, 204);
  EXPECT_EQ(Post("/api/v1/outgoing-webhooks", kValid).status, 201);
}

}  // namespace
}  // namespace redrive::api::testing
