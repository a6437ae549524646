// Producer and worker routes through Api::Handle: enqueue, bulk, claim,
// heartbeat, complete, fail, ack.
#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

TEST_F(ApiTest, EnqueueIsIdempotentByKey) {
  const std::string body = R"({"queue_name":"q","payload":{"a":1},"idempotency_key":"k1"})";
  Reply first = Post("/api/v1/jobs", body);
  EXPECT_EQ(first.status, 201);
  EXPECT_EQ(first["created"], true);
  Reply second = Post("/api/v1/jobs", body);
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(second["created"], false);
  EXPECT_EQ(second["id"], first["id"]);
}

TEST_F(ApiTest, EnqueueValidationNamesTheField) {
  struct Case {
    std::string body, field;
  } cases[] = {
      {R"({"payload":{}})", "queue_name"},
      {R"({"queue_name":"bad name","payload":{}})", "queue_name"},
      {R"({"queue_name":"q"})", "payload"},
      {R"({"queue_name":"q","payload":{},"priority":500})", "priority"},
      {R"({"queue_name":"q","payload":{},"max_retries":1.5})", "max_retries"},
      {R"({"queue_name":"q","payload":{},"timeout_seconds":"60"})", "timeout_seconds"},
      {R"({"queue_name":"q","payload":{},"backoff":{"base_ms":10,"max_ms":5}})", "backoff.max_ms"},
      {R"({"queue_name":"q","payload":{},"tags":{"k":true}})", "tags.k"},
      {R"({"queue_name":"q","payload":{},"scheduled_at":"tomorrow"})", "scheduled_at"},
  };
  for (const Case& c : cases) {
    Reply r = Post("/api/v1/jobs", c.body);
    EXPECT_EQ(r.status, 400) << c.body;
    EXPECT_EQ(r.Code(), "VALIDATION_ERROR") << c.body;
    EXPECT_EQ(r.Field(), c.field) << c.body;
  }
}

// Spooled's fields for features Redrive lacks are refused, never ignored.
TEST_F(ApiTest, SpooledFieldsRedriveLacksAreRefusedNamingTheField) {
  Reply parent = Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"parent_job_id":"x"})");
  EXPECT_EQ(parent.status, 400);
  EXPECT_EQ(parent.Field(), "parent_job_id");
  Reply bulk = Post("/api/v1/jobs/bulk",
                    R"({"queue_name":"q","jobs":[{"payload":{},"parent_job_id":"x"}]})");
  ASSERT_EQ(bulk.status, 200);
  EXPECT_EQ(bulk["failure_count"], 1);
  // null is "not given", as everywhere.
  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"parent_job_id":null})").status,
            201);
  EXPECT_EQ(Do("PUT", "/api/v1/queues/q/config", R"({"rate_limit":10})").Field(), "rate_limit");
  EXPECT_EQ(Do("PUT", "/api/v1/queues/q/config", R"({"settings":{}})").Field(), "settings");
  EXPECT_EQ(Get("/api/v1/jobs?order_by=created_at&order_dir=desc").status, 200);
  EXPECT_EQ(Get("/api/v1/jobs?order_by=priority").Field(), "order_by");
  EXPECT_EQ(Get("/api/v1/jobs?order_dir=asc").Field(), "order_dir");
  EXPECT_EQ(Get("/api/v1/jobs/dlq?order_by=deadlettered_at").status, 200);
  EXPECT_EQ(Get("/api/v1/jobs/dlq?order_by=created_at").Field(), "order_by");
}

// Spooled's completion_webhook: kept with the job, shown to those who may
// see its payload, checked as an outgoing webhook's URL.
TEST_F(ApiTest, CompletionWebhookIsKeptAndCheckedLikeAWebhookUrl) {
  Reply created =
      Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},)"
                           R"("completion_webhook":"https://app.example.com/done?t=1"})");
  ASSERT_EQ(created.status, 201);
  Reply job = Get("/api/v1/jobs/" + Str(created["id"]));
  EXPECT_EQ(job["completion_webhook"], "https://app.example.com/done?t=1");
  // The built-in webhook that carries it exists now, and says what it is.
  Reply hooks = Get("/api/v1/outgoing-webhooks");
  ASSERT_EQ(hooks.status, 200);
  ASSERT_EQ(hooks.json.as_array().size(), 1u);
  EXPECT_EQ(hooks.json.as_array()[0].at("name"), "job-completion");
  EXPECT_EQ(Get("/api/v1/jobs/" +
                Str(Post("/api/v1/jobs",
                         R"({"queue_name":"q","payload":{}})")["id"]))["completion_webhook"],
            nullptr);
  struct Case {
    std::string url, why;
  } refused[] = {
      {R"("ftp://app.example.com/")", "not http"},
      {R"("/relative")", "not absolute"},
      {R"("http://127.0.0.1:8080/done")", "loopback"},
      {R"("http://169.254.169.254/latest")", "link-local"},
      {R"("")", "empty"},
      {R"(42)", "not a string"},
      {"\"https://app.example.com/" + std::string(2100, 'a') + "\"", "too long"},
  };
  for (const Case& c : refused) {
    Reply r = Post("/api/v1/jobs",
                   R"({"queue_name":"q","payload":{},"completion_webhook":)" + c.url + "}");
    EXPECT_EQ(r.status, 400) << c.why;
    EXPECT_EQ(r.Field(), "completion_webhook") << c.why;
  }
  Reply bulk =
      Post("/api/v1/jobs/bulk",
           R"({"queue_name":"q","jobs":[{"payload":{},"completion_webhook":"https://a.example/"},)"
           R"({"payload":{},"completion_webhook":"http://10.0.0.1/"}]})");
  ASSERT_EQ(bulk.status, 200);
  EXPECT_EQ(bulk["success_count"], 1);
  EXPECT_EQ(bulk["failure_count"], 1);
  // The built-in webhook keeps its shape and stays.
  const std::string builtin = "/api/v1/outgoing-webhooks/00000000-0000-7000-8000-000000000001";
  EXPECT_EQ(Do("PUT", builtin, R"({"url":"https://elsewhere.example/"})").Field(), "url");
  EXPECT_EQ(Do("DELETE", builtin, "").status, 409);
  EXPECT_EQ(Do("PUT", builtin, R"({"enabled":false})").status, 200);
}

TEST_F(ApiTest, GetJobShowsTheFullJob) {
  std::string id = Enqueue("q", R"(,"tags":{"t":"v"},"priority":7)");
  Reply r = Get("/api/v1/jobs/" + id);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r["organization_id"], "default");
  EXPECT_EQ(r["status"], "pending");
  EXPECT_EQ(r["priority"], 7);
  EXPECT_EQ(r["tags"].at("t"), "v");
  EXPECT_EQ(r["payload"].at("n"), 1);
  EXPECT_TRUE(r["lease_id"].is_null());
  EXPECT_EQ(Get("/api/v1/jobs/00000000-0000-7000-8000-000000000000").status, 404);
}

TEST_F(ApiTest, BulkReportsInvalidItemsAndInsertsTheRest) {
  Reply r = Post("/api/v1/jobs/bulk", R"({"queue_name":"q","default_priority":3,"jobs":[
      {"payload":{"i":0}}, {"priority":5}, {"payload":{"i":2},"priority":101}, 7,
      {"payload":{"i":4},"idempotency_key":"b4"}]})");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r["total"], 5);
  EXPECT_EQ(r["success_count"], 2);
  EXPECT_EQ(r["failure_count"], 3);
  const auto& ok = r["succeeded"].as_array();
  ASSERT_EQ(ok.size(), 2u);
  EXPECT_EQ(ok[0].at("index"), 0);
  EXPECT_EQ(ok[1].at("index"), 4);
  EXPECT_EQ(ok[1].at("created"), true);
  const auto& failed = r["failed"].as_array();
  ASSERT_EQ(failed.size(), 3u);
  EXPECT_EQ(failed[0].at("index"), 1);
  EXPECT_EQ(failed[0].at("details").at("field"), "jobs[1].payload");
  EXPECT_TRUE(failed[0].at("error").is_string());
  EXPECT_EQ(failed[1].at("details").at("field"), "jobs[2].priority");
  EXPECT_EQ(failed[2].at("index"), 3);
  Reply job = Get("/api/v1/jobs/" + Str(ok[0].at("job_id")));
  EXPECT_EQ(job["priority"], 3);  // default_priority applied
}

TEST_F(ApiTest, BulkLimits) {
  std::string jobs;
  for (int i = 0; i < 1001; ++i) jobs += std::string(i ? "," : "") + R"({"payload":{}})";
  Reply r = Post("/api/v1/jobs/bulk", R"({"queue_name":"q","jobs":[)" + jobs + "]}");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.Field(), "jobs");
  EXPECT_EQ(Post("/api/v1/jobs/bulk", R"({"queue_name":"q"})").Field(), "jobs");
  Reply all_bad = Post("/api/v1/jobs/bulk", R"({"queue_name":"q","jobs":[{}]})");
  EXPECT_EQ(all_bad.status, 200);
  EXPECT_EQ(all_bad["failure_count"], 1);
}

TEST_F(ApiTest, ClaimCompleteShapes) {
  std::string id = Enqueue();
  boost::json::object job = ClaimOne();
  EXPECT_EQ(Str(job.at("id")), id);
  for (const char* key : {"queue_name", "payload", "retry_count", "max_retries", "timeout_seconds",
                          "lease_id", "lease_expires_at", "priority", "tags", "attempts"}) {
    EXPECT_TRUE(job.contains(key)) << key;
  }
  EXPECT_EQ(job.at("attempts"), 1);
  std::string lease = Str(job.at("lease_id"));
  Reply done = Post("/api/v1/jobs/" + id + "/complete",
                    R"({"worker_id":"w1","lease_id":")" + lease + R"(","result":{"ok":true}})");
  EXPECT_EQ(done.status, 200) << done.raw.body;
  EXPECT_EQ(done.json, boost::json::parse(R"({"success":true})"));
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["result"].at("ok"), true);
  Reply again = Post("/api/v1/jobs/" + id + "/complete",
                     R"({"worker_id":"w1","lease_id":")" + lease + R"("})");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.Code(), "CONFLICT");
}

TEST_F(ApiTest, ClaimValidation) {
  EXPECT_EQ(Post("/api/v1/jobs/claim", R"({"worker_id":"w"})").Field(), "queue_name");
  EXPECT_EQ(Post("/api/v1/jobs/claim", R"({"queue_name":"q"})").Field(), "worker_id");
  EXPECT_EQ(Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w","limit":0})").Field(),
            "limit");
  EXPECT_EQ(Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w","limit":101})").Field(),
            "limit");
  EXPECT_EQ(
      Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w","lease_duration_secs":4})")
          .Field(),
      "lease_duration_secs");
  EXPECT_EQ(
      Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w","wait_ms":30001})").Field(),
      "wait_ms");
  Reply empty = Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w"})");
  EXPECT_EQ(empty.json, boost::json::parse(R"({"jobs":[]})"));
}

TEST_F(ApiTest, HeartbeatAndStaleLease) {
  std::string id = Enqueue();
  std::string lease = Str(ClaimOne().at("lease_id"));
  Reply hb = Post("/api/v1/jobs/" + id + "/heartbeat",
                  R"({"worker_id":"w1","lease_id":")" + lease + R"(","lease_duration_secs":60})");
  ASSERT_EQ(hb.status, 200) << hb.raw.body;
  EXPECT_EQ(hb["success"], true);
  EXPECT_TRUE(hb["lease_expires_at"].is_string());
  Reply missing = Post("/api/v1/jobs/" + id + "/heartbeat",
                       R"({"worker_id":"w1","lease_id":")" + lease + R"("})");
  EXPECT_EQ(missing.Field(), "lease_duration_secs");
  Reply stale = Post("/api/v1/jobs/" + id + "/heartbeat",
                     R"({"worker_id":"w1","lease_id":"other","lease_duration_secs":60})");
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.Code(), "LEASE_EXPIRED");
  Reply foreign = Post("/api/v1/jobs/" + id + "/complete",
                       R"({"worker_id":"w2","lease_id":")" + lease + R"("})");
  EXPECT_EQ(foreign.Code(), "LEASE_EXPIRED");
}

// Spooled's SDK may leave lease_id out: the worker_id must then name the
// job's current holder and the lease must still be valid.
TEST_F(ApiTest, LeaseCallsWithoutLeaseIdFenceOnTheHolder) {
  std::string id = Enqueue();
  ClaimOne();
  const std::string base = "/api/v1/jobs/" + id;
  Reply hb = Post(base + "/heartbeat", R"({"worker_id":"w1","lease_duration_secs":60})");
  ASSERT_EQ(hb.status, 200) << hb.raw.body;
  for (const char* route : {"/heartbeat", "/complete", "/fail"}) {
    Reply foreign =
        Post(base + route, R"({"worker_id":"w2","lease_duration_secs":60,"error":"e"})");
    EXPECT_EQ(foreign.status, 409) << route;
    EXPECT_EQ(foreign.Code(), "LEASE_EXPIRED") << route;
  }
  Reply empty = Post(base + "/complete", R"({"worker_id":"w1","lease_id":""})");
  EXPECT_EQ(empty.Field(), "lease_id");  // given, it must be a real lease id
  Reply done = Post(base + "/complete", R"({"worker_id":"w1","result":{"ok":true}})");
  ASSERT_EQ(done.status, 200) << done.raw.body;
  EXPECT_EQ(Get(base)["status"], "completed");

  // An expired lease is not the holder's any more, with or without lease_id.
  std::string late = Enqueue();
  ClaimOne();
  clock_.Advance(std::chrono::seconds(31));
  Reply expired = Post("/api/v1/jobs/" + late + "/fail", R"({"worker_id":"w1","error":"e"})");
  EXPECT_EQ(expired.status, 409) << expired.raw.body;
  EXPECT_EQ(expired.Code(), "LEASE_EXPIRED");
}

TEST_F(ApiTest, FailRetriesThenDeadLetters) {
  std::string id = Enqueue("q", R"(,"max_retries":1,"backoff":{"base_ms":1000,"jitter_ms":0})");
  std::string lease = Str(ClaimOne().at("lease_id"));
  std::string long_error(3000, 'e');
  Reply retry = Post("/api/v1/jobs/" + id + "/fail", R"({"worker_id":"w1","lease_id":")" + lease +
                                                         R"(","error":")" + long_error + R"("})");
  ASSERT_EQ(retry.status, 200) << retry.raw.body;
  EXPECT_EQ(retry["success"], true);
  EXPECT_EQ(retry["will_retry"], true);
  EXPECT_EQ(retry["status"], "scheduled");
  EXPECT_EQ(retry["retry_count"], 1);
  EXPECT_TRUE(retry["scheduled_at"].is_string());
  EXPECT_FALSE(retry.json.as_object().contains("dead_reason"));
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["last_error"].as_string().size(), 2048u);  // truncated

  clock_.Advance(std::chrono::seconds(2));
  engine_->RunServicesOnce();
  lease = Str(ClaimOne().at("lease_id"));
  Reply dead = Post("/api/v1/jobs/" + id + "/fail",
                    R"({"worker_id":"w1","lease_id":")" + lease + R"(","error":"again"})");
  EXPECT_EQ(dead["will_retry"], false);
  EXPECT_EQ(dead["status"], "deadletter");
  EXPECT_EQ(dead["dead_reason"], "max_retries_exceeded");
  EXPECT_FALSE(dead.json.as_object().contains("scheduled_at"));
}

TEST_F(ApiTest, FailValidation) {
  EXPECT_EQ(Post("/api/v1/jobs/x/fail", R"({"worker_id":"w","lease_id":"l"})").Field(), "error");
  EXPECT_EQ(Post("/api/v1/jobs/x/fail",
                 R"({"worker_id":"w","lease_id":"l","error":"e","retry_after_ms":-1})")
                .Field(),
            "retry_after_ms");
  EXPECT_EQ(
      Post("/api/v1/jobs/x/fail", R"({"worker_id":"w","lease_id":"l","error":"e","no_retry":1})")
          .Field(),
      "no_retry");
}

TEST_F(ApiTest, FailDetailsAreKeptInTheHistory) {
  std::string id = Enqueue();
  std::string lease = Str(ClaimOne().at("lease_id"));
  Reply r = Post("/api/v1/jobs/" + id + "/fail",
                 R"({"worker_id":"w1","lease_id":")" + lease +
                     R"(","error":"gateway timeout","details":{"exit_code":1,"signal":null}})");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["last_error"], "gateway timeout");
  Reply history = Get("/api/v1/jobs/" + id + "/history");
  const auto& entries = history.json.as_array();
  const auto& failed = entries.back().at("details");
  EXPECT_EQ(failed.at("error"), "gateway timeout");
  EXPECT_EQ(failed.at("attempt").at("exit_code"), 1);
  EXPECT_TRUE(failed.at("attempt").at("signal").is_null());
}

TEST_F(ApiTest, FailDetailsMustBeASmallObject) {
  Reply not_object =
      Post("/api/v1/jobs/x/fail", R"({"worker_id":"w","lease_id":"l","error":"e","details":[1]})");
  EXPECT_EQ(not_object.status, 400);
  EXPECT_EQ(not_object.Field(), "details");
  std::string big(1100, 'x');
  Reply too_big = Post("/api/v1/jobs/x/fail", R"({"worker_id":"w","lease_id":"l","error":"e",)"
                                              R"("details":{"note":")" +
                                                  big + R"("}})");
  EXPECT_EQ(too_big.status, 400);
  EXPECT_EQ(too_big.Code(), "VALIDATION_ERROR");
  EXPECT_EQ(too_big.Field(), "details");
}

TEST_F(ApiTest, NoRetryGoesStraightToTheDlq) {
  std::string id = Enqueue();
  std::string lease = Str(ClaimOne().at("lease_id"));
  Reply r = Post("/api/v1/jobs/" + id + "/fail", R"({"worker_id":"w1","lease_id":")" + lease +
                                                     R"(","error":"bad input","no_retry":true})");
  EXPECT_EQ(r["status"], "deadletter");
  EXPECT_EQ(r["dead_reason"], "non_retryable");
}

TEST_F(ApiTest, AckReportsPerItemResults) {
  std::string a = Enqueue(), b = Enqueue(), c = Enqueue();
  Reply claim = Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w1","limit":3})");
  ASSERT_EQ(claim["jobs"].as_array().size(), 3u);
  std::map<std::string, std::string> lease;
  for (const auto& j : claim["jobs"].as_array()) lease[Str(j.at("id"))] = Str(j.at("lease_id"));
  Reply r = Post("/api/v1/jobs/ack", R"({"worker_id":"w1","acks":[
      {"id":")" + a + R"(","lease_id":")" +
                                         lease[a] + R"(","result":{"x":1}},
      {"id":")" + b + R"(","lease_id":")" +
                                         lease[b] + R"(","error":"boom"},
      {"id":")" + c + R"(","lease_id":"stale"}]})");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  const auto& results = r["results"].as_array();
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].at("success"), true);
  EXPECT_EQ(results[0].at("status"), "completed");
  EXPECT_EQ(results[1].at("success"), true);
  EXPECT_EQ(results[1].at("will_retry"), true);
  EXPECT_EQ(results[2].at("success"), false);
  EXPECT_EQ(results[2].at("code"), "LEASE_EXPIRED");
  EXPECT_EQ(Post("/api/v1/jobs/ack", R"({"worker_id":"w1"})").Field(), "acks");
  EXPECT_EQ(Post("/api/v1/jobs/ack", R"({"worker_id":"w1","acks":[{"id":"x"}]})").Field(),
            "acks[0].lease_id");
}

TEST_F(ApiTest, ClaimWithAcksAnswersResults) {
  std::string a = Enqueue();
  std::string lease = Str(ClaimOne().at("lease_id"));
  std::string b = Enqueue();
  Reply r = Post("/api/v1/jobs/claim", R"({"queue_name":"q","worker_id":"w1","acks":[
      {"id":")" + a + R"(","lease_id":")" + lease +
                                           R"("}]})");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  ASSERT_EQ(r["results"].as_array().size(), 1u);
  EXPECT_EQ(r["results"].as_array()[0].at("status"), "completed");
  ASSERT_EQ(r["jobs"].as_array().size(), 1u);
  EXPECT_EQ(Str(r["jobs"].as_array()[0].at("id")), b);
}

}  // namespace
}  // namespace redrive::api::testing
