// Bulk operations through Api::Handle: POST /operations (and its dry run),
// GET /operations, GET /operations/{id}, POST /operations/{id}/cancel, the
// Idempotency-Key and audit entry of an operator route, and every bad input
// (a 4xx naming the field).
#include <gtest/gtest.h>

#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

class ApiOperationsTest : public ApiTest {
 protected:
  std::string DeadJob(const std::string& queue = "q", const std::string& error = "upstream 504") {
    std::string id = Enqueue(queue);
    std::string lease = Str(ClaimOne(queue).at("lease_id"));
    Reply r = Post("/api/v1/jobs/" + id + "/fail", R"({"worker_id":"w1","lease_id":")" + lease +
                                                       R"(","error":")" + error +
                                                       R"(","no_retry":true})");
    EXPECT_EQ(r["status"], "deadletter");
    return id;
  }
  Reply WithHeaders(const std::string& method, const std::string& target, const std::string& body,
                    std::map<std::string, std::string> headers) {
    Request r;
    r.method = method;
    r.target = target;
    r.body = body;
    r.headers["content-type"] = "application/json";
    for (auto& [k, v] : headers) r.headers[k] = v;
    return Send(std::move(r));
  }
  // Runs the background services until the operation has finished.
  Reply RunToEnd(const std::string& id) {
    for (int i = 0; i < 100; ++i) {
      engine_->RunServicesOnce();
      Reply op = Get("/api/v1/operations/" + id);
      if (op["state"] != "queued" && op["state"] != "running") return op;
      clock_.Advance(std::chrono::seconds(1));
    }
    return Get("/api/v1/operations/" + id);
  }
};

TEST_F(ApiOperationsTest, ARetryOperationRunsAndReportsItsProgress) {
  const std::string a = DeadJob("payments");
  const std::string b = DeadJob("payments");
  DeadJob("other");
  Reply created =
      Post("/api/v1/operations", R"({"action":"retry","selector":{"queue_name":"payments"},)"
                                 R"("budget":"extend:2","target_queue":"payments-slow",)"
                                 R"("rate_per_second":1,"reason":"INC-4411 gateway fixed"})");
  ASSERT_EQ(created.status, 202) << created.raw.body;
  const std::string id = Str(created["id"]);
  EXPECT_EQ(created["action"], "retry");
  EXPECT_EQ(created["state"], "queued");
  EXPECT_EQ(created["matched"], 2);
  EXPECT_EQ(created["done"], 0);
  EXPECT_EQ(created["budget"], "extend:2");
  EXPECT_EQ(created["target_queue"], "payments-slow");
  EXPECT_EQ(created["reason"], "INC-4411 gateway fixed");
  EXPECT_EQ(created["created_by"], "local");
  EXPECT_EQ(created["selector"].at("queue_name"), "payments");
  EXPECT_EQ(created["statuses"].as_array().size(), 1u);
  EXPECT_EQ(created["eta_seconds"], 2);  // two jobs at one a second

  engine_->RunServicesOnce();
  Reply running = Get("/api/v1/operations/" + id);
  EXPECT_EQ(running["state"], "running");
  EXPECT_EQ(running["done"], 1);
  EXPECT_EQ(running["remaining"], 1);
  EXPECT_FALSE(running["started_at"].is_null());
  Reply done = RunToEnd(id);
  EXPECT_EQ(done["state"], "completed");
  EXPECT_EQ(done["done"], 2);
  EXPECT_EQ(done["failed"], 0);
  EXPECT_TRUE(done["eta_seconds"].is_null());
  for (const std::string& job : {a, b}) {
    Reply j = Get("/api/v1/jobs/" + job);
    EXPECT_EQ(j["queue_name"], "payments-slow");
    EXPECT_EQ(j["status"], "pending");
    EXPECT_EQ(j["max_retries"], 5);
  }
  EXPECT_EQ(Get("/api/v1/jobs/dlq?queue_name=other").json.as_array().size(), 1u);

  Reply listed = Get("/api/v1/operations");
  ASSERT_EQ(listed.status, 200);
  ASSERT_EQ(listed.json.as_array().size(), 1u);
  EXPECT_EQ(Str(listed.json.as_array()[0].at("id")), id);
  Reply cancel = Post("/api/v1/operations/" + id + "/cancel", "");
  EXPECT_EQ(cancel.status, 409);
  EXPECT_EQ(cancel.Code(), "CONFLICT");
  EXPECT_EQ(Get("/api/v1/operations/nope").status, 404);
  EXPECT_EQ(Post("/api/v1/operations/nope/cancel", "").status, 404);
}

// A fingerprint selects one error class, and the operation keeps it: the
// runner, reading the operation back from the store, redrives that class
// only. Cancel takes no fingerprint (it selects jobs that have none).
TEST_F(ApiOperationsTest, AFingerprintSelectsOneErrorClassThroughTheRun) {
  const std::string t20 = DeadJob("payments", "upstream 504 after 20s");
  const std::string t30 = DeadJob("payments", "upstream 504 after 30s");
  const std::string other = DeadJob("payments", "card declined");
  Reply summary = Get("/api/v1/jobs/dlq/summary?queue_name=payments");
  ASSERT_EQ(summary.status, 200) << summary.raw.body;
  std::string fingerprint;
  for (const auto& g : summary.json.as_array()) {
    if (g.at("count") == 2) fingerprint = Str(g.at("fingerprint"));
  }
  ASSERT_FALSE(fingerprint.empty()) << summary.raw.body;
  Reply created = Post("/api/v1/operations",
                       R"({"action":"retry","selector":{"fingerprint":")" + fingerprint + R"("}})");
  ASSERT_EQ(created.status, 202) << created.raw.body;
  EXPECT_EQ(created["matched"], 2);
  EXPECT_EQ(RunToEnd(Str(created["id"]))["done"], 2);
  EXPECT_EQ(Get("/api/v1/jobs/" + t20)["status"], "pending");
  EXPECT_EQ(Get("/api/v1/jobs/" + t30)["status"], "pending");
  EXPECT_EQ(Get("/api/v1/jobs/" + other)["status"], "deadletter");
  Reply cancel = Post("/api/v1/operations",
                      R"({"action":"cancel","selector":{"fingerprint":")" + fingerprint + R"("}})");
  EXPECT_EQ(cancel.status, 400);
  EXPECT_EQ(cancel.Field(), "selector.fingerprint");
  EXPECT_EQ(
      Post("/api/v1/operations", R"({"action":"purge","selector":{"fingerprint":"nope"}})").status,
      400);
}

TEST_F(ApiOperationsTest, ADryRunAnswersTheCountAndASampleAndCreatesNothing) {
  for (int i = 0; i < 25; ++i) DeadJob("payments");
  Reply r = Post("/api/v1/operations",
                 R"({"action":"purge","selector":{"queue_name":"payments"},"dry_run":true})");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(r["dry_run"], true);
  EXPECT_EQ(r["matched_count"], 25);
  EXPECT_EQ(r["sample"].as_array().size(), 20u);
  EXPECT_TRUE(Get("/api/v1/operations").json.as_array().empty());
  EXPECT_EQ(Get("/api/v1/jobs/dlq?limit=100").json.as_array().size(), 25u);
}

TEST_F(ApiOperationsTest, CancelStopsARunningOperation) {
  for (int i = 0; i < 3; ++i) DeadJob();
  Reply created = Post("/api/v1/operations",
                       R"({"action":"purge","selector":{"queue_name":"q"},"rate_per_second":1})");
  ASSERT_EQ(created.status, 202);
  const std::string id = Str(created["id"]);
  engine_->RunServicesOnce();
  Reply cancelled = Post("/api/v1/operations/" + id + "/cancel", "");
  ASSERT_EQ(cancelled.status, 200) << cancelled.raw.body;
  EXPECT_EQ(cancelled["state"], "cancelled");
  EXPECT_FALSE(cancelled["finished_at"].is_null());
  clock_.Advance(std::chrono::seconds(10));
  engine_->RunServicesOnce();
  EXPECT_EQ(Get("/api/v1/operations/" + id)["done"], 1);
  EXPECT_EQ(Get("/api/v1/jobs/dlq").json.as_array().size(), 2u);
}

TEST_F(ApiOperationsTest, CancelAndReleaseSelectTheirStatuses) {
  Enqueue("q");
  Enqueue("q", R"(,"scheduled_at":"2099-01-01T00:00:00Z")");
  Reply created = Post("/api/v1/operations",
                       R"({"action":"cancel","selector":{"queue_name":"q","status":"pending"}})");
  ASSERT_EQ(created.status, 202) << created.raw.body;
  EXPECT_EQ(created["matched"], 1);
  EXPECT_EQ(RunToEnd(Str(created["id"]))["done"], 1);
  EXPECT_EQ(Get("/api/v1/jobs/stats")["cancelled"], 1);
  EXPECT_EQ(Get("/api/v1/jobs/stats")["scheduled"], 1);
  Reply release = Post("/api/v1/operations", R"({"action":"release","selector":{"tag":"x"}})");
  ASSERT_EQ(release.status, 202) << release.raw.body;
  EXPECT_EQ(release["statuses"].as_array()[0], "quarantined");
}

TEST_F(ApiOperationsTest, BadInputIsRefusedNamingTheField) {
  struct Case {
    const char* body;
    const char* field;
  };
  const Case cases[] = {
      {R"({"selector":{"queue_name":"q"}})", "action"},
      {R"({"action":"explode","selector":{"queue_name":"q"}})", "action"},
      {R"({"action":7,"selector":{"queue_name":"q"}})", "action"},
      {R"({"action":"retry"})", "selector"},
      {R"({"action":"retry","selector":{}})", "selector"},
      {R"({"action":"retry","selector":[]})", "selector"},
      {R"({"action":"retry","selector":{"status":"deadletter"}})", "selector"},
      {R"({"action":"retry","selector":{"queue":"q"}})", "selector.queue"},
      {R"({"action":"retry","selector":{"queue_name":""}})", "selector.queue_name"},
      {R"({"action":"retry","selector":{"dead_reason":"bored"}})", "selector.dead_reason"},
      {R"({"action":"retry","selector":{"dead_before":"yesterday"}})", "selector.dead_before"},
      {R"({"action":"retry","selector":{"job_ids":[1]}})", "selector.job_ids[0]"},
      {R"({"action":"retry","selector":{"job_ids":["a\nb"]}})", "selector.job_ids[0]"},
      {R"({"action":"retry","selector":{"job_ids":["a"],"queue_name":"q"}})", "selector.job_ids"},
      {R"({"action":"retry","selector":{"queue_name":"q","status":"pending"}})", "selector.status"},
      {R"({"action":"cancel","selector":{"queue_name":"q","dead_reason":"expired"}})",
       "selector.dead_reason"},
      {R"({"action":"retry","selector":{"queue_name":"q"},"budget":"extend:0"})", "budget"},
      {R"({"action":"retry","selector":{"queue_name":"q"},"budget":"extend:101"})", "budget"},
      {R"({"action":"retry","selector":{"queue_name":"q"},"budget":"more"})", "budget"},
      {R"({"action":"purge","selector":{"queue_name":"q"},"budget":"keep"})", "budget"},
      {R"({"action":"purge","selector":{"queue_name":"q"},"target_queue":"x"})", "target_queue"},
      {R"({"action":"retry","selector":{"queue_name":"q"},"target_queue":"a b"})", "target_queue"},
      {R"({"action":"retry","selector":{"queue_name":"q"},"rate_per_second":0})",
       "rate_per_second"},
      {R"({"action":"retry","selector":{"queue_name":"q"},"rate_per_second":"fast"})",
       "rate_per_second"},
      {R"({"action":"retry","selector":{"queue_name":"q"},"dry_run":"yes"})", "dry_run"},
  };
  for (const Case& c : cases) {
    Reply r = Post("/api/v1/operations", c.body);
    EXPECT_EQ(r.status, 400) << c.body << " " << r.raw.body;
    if (r.status == 400) {
      EXPECT_EQ(r.Field(), c.field) << c.body;
    }
  }
  const std::string long_reason(501, 'r');
  Reply r =
      Post("/api/v1/operations",
           R"({"action":"retry","selector":{"queue_name":"q"},"reason":")" + long_reason + R"("})");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.Field(), "reason");
  const std::string long_prefix(2049, 'e');
  r = Post("/api/v1/operations",
           R"({"action":"retry","selector":{"error_prefix":")" + long_prefix + R"("}})");
  EXPECT_EQ(r.Field(), "selector.error_prefix");
  EXPECT_EQ(Get("/api/v1/operations?limit=many").Field(), "limit");
  EXPECT_EQ(Get("/api/v1/operations?offset=-1").Field(), "offset");
  EXPECT_TRUE(Get("/api/v1/operations").json.as_array().empty());
}

TEST_F(ApiOperationsTest, PastTheLimitOfUnfinishedOperationsIs409) {
  // Each operation's first batch takes one job (a rate of 0.001/s): with
  // jobs left, none of them finishes.
  for (size_t i = 0; i < 2 * kMaxUnfinishedOperations; ++i) DeadJob();
  const std::string body =
      R"({"action":"retry","selector":{"queue_name":"q"},"rate_per_second":0.001})";
  for (size_t i = 0; i < kMaxUnfinishedOperations; ++i) {
    ASSERT_EQ(Post("/api/v1/operations", body).status, 202);
  }
  Reply r = Post("/api/v1/operations", body);
  EXPECT_EQ(r.status, 409);
  EXPECT_EQ(r.Code(), "CONFLICT");
}

TEST_F(ApiOperationsTest, CreationTakesAnIdempotencyKeyAndIsAudited) {
  DeadJob();
  const std::string body = R"({"action":"retry","selector":{"queue_name":"q"}})";
  Reply first = WithHeaders("POST", "/api/v1/operations", body,
                            {{"idempotency-key", "op-1"}, {"x-redrive-reason", "INC-1"}});
  ASSERT_EQ(first.status, 202) << first.raw.body;
  EXPECT_EQ(first["reason"], "INC-1");  // the header stands in for the body's reason
  Reply again = WithHeaders("POST", "/api/v1/operations", body, {{"idempotency-key", "op-1"}});
  EXPECT_EQ(again.status, 202);
  EXPECT_EQ(again.raw.body, first.raw.body);
  EXPECT_EQ(Get("/api/v1/operations").json.as_array().size(), 1u);
  Reply other = WithHeaders("POST", "/api/v1/operations",
                            R"({"action":"purge","selector":{"queue_name":"q"}})",
                            {{"idempotency-key", "op-1"}});
  EXPECT_EQ(other.status, 409);
  EXPECT_EQ(other.Field(), "Idempotency-Key");

  const std::string id = Str(first["id"]);
  Reply audit = Get("/api/v1/audit?action=operation.create");
  ASSERT_EQ(audit["entries"].as_array().size(), 1u);
  const auto& entry = audit["entries"].as_array()[0].as_object();
  EXPECT_EQ(entry.at("reason"), "INC-1");
  EXPECT_EQ(entry.at("count"), 1);
  EXPECT_EQ(Str(entry.at("targets").as_array()[0]), "operation:" + id);
  EXPECT_NE(std::string(entry.at("selector").as_string()).find("queue_name"), std::string::npos);
  RunToEnd(id);
  ASSERT_EQ(Post("/api/v1/operations", R"({"action":"retry","selector":{"queue_name":"q"},)"
                                       R"("rate_per_second":0.001,"reason":"body reason"})")
                .status,
            202);
  audit = Get("/api/v1/audit?action=operation.create");
  EXPECT_EQ(audit["entries"].as_array()[0].at("reason"), "body reason");
}

}  // namespace
}  // namespace redrive::api::testing
