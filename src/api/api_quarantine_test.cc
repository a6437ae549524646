// Quarantine, snooze and redrive budgets through Api::Handle: the routes,
// their answers and every bad input (a 4xx naming the field).
#include <gtest/gtest.h>

#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

class ApiQuarantineTest : public ApiTest {
 protected:
  // A job quarantined at its first crash (crash_limit 1).
  std::string QuarantinedJob(const std::string& queue = "q") {
    std::string id = Enqueue(queue, R"(,"crash_limit":1)");
    ClaimOne(queue);
    clock_.Advance(std::chrono::seconds(31));
    engine_->RunServicesOnce();
    EXPECT_EQ(Get("/api/v1/jobs/" + id)["status"], "quarantined");
    return id;
  }
};

TEST_F(ApiQuarantineTest, AQuarantinedJobIsListedCountedShownAndReleased) {
  const std::string id = QuarantinedJob();
  Reply job = Get("/api/v1/jobs/" + id);
  EXPECT_EQ(job["crash_count"], 1);
  EXPECT_EQ(job["crash_limit"], 1);
  EXPECT_EQ(job["last_error"], "lease expired");
  EXPECT_EQ(Get("/api/v1/jobs?status=quarantined").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/jobs/stats")["quarantined"], 1);
  EXPECT_EQ(Get("/api/v1/queues/q/stats")["quarantined"], 1);
  EXPECT_EQ(Get("/api/v1/queues/q")["counts"].at("quarantined"), 1);
  Reply history = Get("/api/v1/jobs/" + id + "/history");
  const auto& last = history.json.as_array().back();
  EXPECT_EQ(last.at("event_type"), "quarantined");
  EXPECT_EQ(last.at("details").at("reason"), "crash_limit");
  // Repaired like a dead job.
  EXPECT_EQ(Do("PUT", "/api/v1/jobs/" + id + "/payload", R"({"payload":{"fixed":true}})").status,
            200);

  Reply released = Post("/api/v1/jobs/" + id + "/release", R"({"budget":"extend:2"})");
  ASSERT_EQ(released.status, 200) << boost::json::serialize(released.json);
  EXPECT_EQ(released["status"], "pending");
  EXPECT_EQ(released["crash_count"], 0);
  EXPECT_EQ(released["max_retries"], 5);
  Reply again = Post("/api/v1/jobs/" + id + "/release", "{}");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.Code(), "CONFLICT");
  EXPECT_EQ(Post("/api/v1/jobs/nope/release", "{}").status, 404);
}

TEST_F(ApiQuarantineTest, BadBudgetsAndSelectorsAreRefusedNamingTheField) {
  const std::string id = QuarantinedJob();
  for (const char* bad : {R"({"budget":"more"})", R"({"budget":"extend:0"})",
                          R"({"budget":"extend:101"})", R"({"budget":3})"}) {
    Reply r = Post("/api/v1/jobs/" + id + "/release", bad);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(r.Field(), "budget") << bad;
  }
  EXPECT_EQ(Post("/api/v1/jobs/" + id + "/retry", R"({"budget":"x"})").Field(), "budget");
  EXPECT_EQ(Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"q","budget":"x"})").Field(), "budget");
  Reply empty = Post("/api/v1/jobs/quarantine/release", "{}");
  EXPECT_EQ(empty.status, 400);
  EXPECT_EQ(empty.Field(), "job_ids");
  EXPECT_EQ(Post("/api/v1/jobs/quarantine/release", R"({"job_ids":[]})").Field(), "job_ids");
  EXPECT_EQ(
      Post("/api/v1/jobs/quarantine/release", R"({"job_ids":["a"],"queue_name":"q"})").Field(),
      "job_ids");
  EXPECT_EQ(Post("/api/v1/jobs/quarantine/release", R"({"queue_name":"q","limit":1001})").Field(),
            "limit");
  EXPECT_EQ(Post("/api/v1/jobs/quarantine/release", R"({"queue_name":"q","budget":"x"})").Field(),
            "budget");
  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"crash_limit":101})").Field(),
            "crash_limit");
  EXPECT_EQ(Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"max_snoozes":-1})").Field(),
            "max_snoozes");
  EXPECT_EQ(Do("PUT", "/api/v1/queues/q/config", R"({"crash_limit":"3"})").Field(), "crash_limit");
}

TEST_F(ApiQuarantineTest, BulkReleaseWithADryRunFirst) {
  QuarantinedJob("a");
  QuarantinedJob("a");
  const std::string other = QuarantinedJob("b");
  Reply dry = Post("/api/v1/jobs/quarantine/release", R"({"queue_name":"a","dry_run":true})");
  ASSERT_EQ(dry.status, 200);
  EXPECT_EQ(dry["selected_count"], 2);
  EXPECT_EQ(dry["released_count"], 0);
  Reply real = Post("/api/v1/jobs/quarantine/release", R"({"queue_name":"a","budget":"keep"})");
  EXPECT_EQ(real["released_count"], 2);
  EXPECT_EQ(real["released_ids"].as_array().size(), 2u);
  Reply named = Post("/api/v1/jobs/quarantine/release", R"({"job_ids":[")" + other + R"("]})");
  EXPECT_EQ(named["released_ids"].as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/jobs/stats")["quarantined"], 0);
}

// target_queue [ext]: a poison pill released into a queue of its own (one
// careful worker), alone or by selection; a bad name is refused.
TEST_F(ApiQuarantineTest, ReleaseIntoATargetQueue) {
  const std::string one = QuarantinedJob("a");
  Reply released = Post("/api/v1/jobs/" + one + "/release", R"({"target_queue":"a-careful"})");
  ASSERT_EQ(released.status, 200) << released.raw.body;
  EXPECT_EQ(released["queue_name"], "a-careful");
  EXPECT_EQ(released["status"], "pending");
  const std::string two = QuarantinedJob("a");
  Reply bulk =
      Post("/api/v1/jobs/quarantine/release", R"({"queue_name":"a","target_queue":"a-careful"})");
  ASSERT_EQ(bulk.status, 200) << bulk.raw.body;
  EXPECT_EQ(bulk["released_count"], 1);
  EXPECT_EQ(Get("/api/v1/jobs/" + two)["queue_name"], "a-careful");
  const std::string three = QuarantinedJob("a");
  EXPECT_EQ(Post("/api/v1/jobs/" + three + "/release", R"({"target_queue":""})").Field(),
            "target_queue");
  EXPECT_EQ(Get("/api/v1/jobs/" + three)["status"], "quarantined");
}

TEST_F(ApiQuarantineTest, SnoozeIsFencedBoundedAndValidated) {
  const std::string id = Enqueue("q", R"(,"max_snoozes":1)");
  std::string lease = Str(ClaimOne().at("lease_id"));
  const std::string path = "/api/v1/jobs/" + id + "/snooze";
  EXPECT_EQ(Post(path, R"({"worker_id":"w1","lease_id":")" + lease + "\"}").Field(), "delay_ms");
  EXPECT_EQ(Post(path, R"({"worker_id":"w1","lease_id":")" + lease + R"(","delay_ms":-1})").Field(),
            "delay_ms");
  EXPECT_EQ(Post(path, R"({"worker_id":"w1","lease_id":")" + lease + R"(","delay_ms":604800001})")
                .Field(),
            "delay_ms");
  EXPECT_EQ(Post(path, R"({"worker_id":"w1","delay_ms":5})").Field(), "lease_id");
  Reply stale = Post(path, R"({"worker_id":"w1","lease_id":"other","delay_ms":5})");
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.Code(), "LEASE_EXPIRED");

  Reply ok = Post(path, R"({"worker_id":"w1","lease_id":")" + lease + R"(","delay_ms":5000})");
  ASSERT_EQ(ok.status, 200) << boost::json::serialize(ok.json);
  EXPECT_EQ(ok["status"], "scheduled");
  EXPECT_EQ(ok["snooze_count"], 1);
  EXPECT_EQ(ok["retry_count"], 0);
  clock_.Advance(std::chrono::seconds(5));
  engine_->RunServicesOnce();
  lease = Str(ClaimOne().at("lease_id"));
  Reply refused = Post(path, R"({"worker_id":"w1","lease_id":")" + lease + R"(","delay_ms":0})");
  EXPECT_EQ(refused.status, 409);
  EXPECT_EQ(refused.Code(), "CONFLICT");
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["status"], "processing");
}

TEST_F(ApiQuarantineTest, QueueConfigCarriesTheCrashLimitAndMaxSnoozes) {
  Reply c = Do("PUT", "/api/v1/queues/q/config", R"({"crash_limit":0,"max_snoozes":5})");
  ASSERT_EQ(c.status, 200);
  EXPECT_EQ(c["crash_limit"], 0);
  EXPECT_EQ(c["max_snoozes"], 5);
  const std::string id = Enqueue("q");
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["crash_limit"], 0);
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["max_snoozes"], 5);
}

}  // namespace
}  // namespace redrive::api::testing
