// Move operations and fingerprint selection of quarantined jobs through
// Api::Handle: a move and its dry run, the jobs in the target queue with a
// "moved" history entry naming the operator, every bad input (a 400 naming
// the field); GET /jobs?status=quarantined&fingerprint=...,
// POST /jobs/quarantine/release and release operations by fingerprint.
#include <gtest/gtest.h>

#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

class ApiMoveTest : public ApiTest {
 protected:
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
  // A job quarantined at its first crash: its lease lost ("lease expired"),
  // or, with `timeout` 1, its attempt timed out (another error class).
  std::string QuarantinedJob(const std::string& queue, bool timeout = false) {
    std::string id =
        Enqueue(queue, timeout ? R"(,"crash_limit":1,"timeout_seconds":1)" : R"(,"crash_limit":1)");
    ClaimOne(queue);
    clock_.Advance(std::chrono::seconds(31));
    engine_->RunServicesOnce();
    EXPECT_EQ(Get("/api/v1/jobs/" + id)["status"], "quarantined");
    return id;
  }
  std::string FingerprintOf(const std::string& id) {
    return Str(Get("/api/v1/jobs/" + id)["error_fingerprint"]);
  }
};

TEST_F(ApiMoveTest, AMoveSendsWaitingJobsToTheTargetQueueAndRecordsWho) {
  const std::string a = Enqueue("payments");
  const std::string b = Enqueue("payments");
  const std::string held = Enqueue("payments");
  Enqueue("other");
  // Claims the oldest: `a`. A processing job is never moved.
  ASSERT_EQ(Str(ClaimOne("payments").at("id")), a);

  Reply dry = Post("/api/v1/operations", R"({"action":"move","selector":{"queue_name":"payments"},)"
                                         R"("target_queue":"payments-slow","dry_run":true})");
  ASSERT_EQ(dry.status, 200) << dry.raw.body;
  EXPECT_EQ(dry["matched_count"], 2);
  EXPECT_EQ(Get("/api/v1/jobs/" + b)["queue_name"], "payments");

  Reply created =
      Post("/api/v1/operations", R"({"action":"move","selector":{"queue_name":"payments"},)"
                                 R"("target_queue":"payments-slow","reason":"drain payments"})");
  ASSERT_EQ(created.status, 202) << created.raw.body;
  EXPECT_EQ(created["action"], "move");
  EXPECT_EQ(created["target_queue"], "payments-slow");
  EXPECT_EQ(created["matched"], 2);
  Reply op = RunToEnd(Str(created["id"]));
  EXPECT_EQ(op["state"], "completed");
  EXPECT_EQ(op["done"], 2);

  for (const std::string& id : {b, held}) {
    Reply job = Get("/api/v1/jobs/" + id);
    EXPECT_EQ(job["queue_name"], "payments-slow");
    EXPECT_EQ(job["status"], "pending");
  }
  EXPECT_EQ(Get("/api/v1/jobs/" + a)["queue_name"], "payments");
  EXPECT_EQ(Get("/api/v1/jobs/" + a)["status"], "processing");
  Reply history = Get("/api/v1/jobs/" + b + "/history");
  const auto& last = history.json.as_array().back();
  EXPECT_EQ(last.at("event_type"), "moved");
  EXPECT_EQ(last.at("details").at("from_queue"), "payments");
  EXPECT_EQ(last.at("details").at("to_queue"), "payments-slow");
  EXPECT_EQ(last.at("details").at("by"), "local");
  EXPECT_EQ(last.at("details").at("operation_id"), created["id"]);
  // The target queue exists now, as a redrive's does.
  EXPECT_EQ(Get("/api/v1/queues/payments-slow").status, 200);
  EXPECT_EQ(Str(ClaimOne("payments-slow").at("id")), b);
}

TEST_F(ApiMoveTest, BadMovesAreRefusedNamingTheField) {
  Enqueue("payments");
  struct Case {
    const char* body;
    const char* field;
  };
  const Case cases[] = {
      // The target is required, a queue name, and not the selector's queue.
      {R"({"action":"move","selector":{"queue_name":"payments"}})", "target_queue"},
      {R"({"action":"move","selector":{"queue_name":"payments"},"target_queue":"payments"})",
       "target_queue"},
      {R"({"action":"move","selector":{"queue_name":"payments"},"target_queue":"a b"})",
       "target_queue"},
      {R"({"action":"move","selector":{"queue_name":"payments"},"target_queue":7})",
       "target_queue"},
      // A move spends no retry budget.
      {R"({"action":"move","selector":{"queue_name":"payments"},"target_queue":"b",)"
       R"("budget":"keep"})",
       "budget"},
      // Never a processing or blocked job.
      {R"({"action":"move","selector":{"queue_name":"payments","status":"processing"},)"
       R"("target_queue":"b"})",
       "selector.status"},
      {R"({"action":"move","selector":{"queue_name":"payments","status":"blocked"},)"
       R"("target_queue":"b"})",
       "selector.status"},
      {R"({"action":"move","selector":{},"target_queue":"b"})", "selector"},
      // A cancel or purge takes no target.
      {R"({"action":"cancel","selector":{"queue_name":"payments"},"target_queue":"b"})",
       "target_queue"},
      {R"({"action":"purge","selector":{"queue_name":"payments"},"target_queue":"b"})",
       "target_queue"},
      // An unknown action is still refused, naming every action.
      {R"({"action":"teleport","selector":{"queue_name":"payments"},"target_queue":"b"})",
       "action"},
  };
  for (const Case& c : cases) {
    Reply r = Post("/api/v1/operations", c.body);
    EXPECT_EQ(r.status, 400) << c.body << " → " << r.raw.body;
    EXPECT_EQ(r.Code(), "VALIDATION_ERROR") << c.body;
    EXPECT_EQ(r.Field(), c.field) << c.body << " → " << r.raw.body;
  }
  Reply unknown =
      Post("/api/v1/operations", R"({"action":"teleport","selector":{"queue_name":"payments"}})");
  EXPECT_NE(Str(unknown.json.at("message")).find("retry, purge, cancel, release, move"),
            std::string::npos)
      << unknown.raw.body;
  EXPECT_TRUE(Get("/api/v1/operations").json.as_array().empty());
}

TEST_F(ApiMoveTest, QuarantinedJobsAreListedAndReleasedByFingerprint) {
  const std::string lost = QuarantinedJob("q");
  const std::string lost2 = QuarantinedJob("q");
  const std::string timed_out = QuarantinedJob("q", true);
  const std::string lease_class = FingerprintOf(lost);
  const std::string timeout_class = FingerprintOf(timed_out);
  ASSERT_EQ(lease_class.size(), 16u);
  ASSERT_NE(lease_class, timeout_class);

  Reply listed = Get("/api/v1/jobs?status=quarantined&fingerprint=" + timeout_class);
  ASSERT_EQ(listed.status, 200) << listed.raw.body;
  ASSERT_EQ(listed.json.as_array().size(), 1u);
  EXPECT_EQ(Str(listed.json.as_array()[0].at("id")), timed_out);
  EXPECT_EQ(
      Get("/api/v1/jobs?status=quarantined&fingerprint=" + lease_class).json.as_array().size(), 2u);
  Reply bad = Get("/api/v1/jobs?status=quarantined&fingerprint=XYZ");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.Field(), "fingerprint");

  // The synchronous bulk release, by class.
  Reply dry = Post("/api/v1/jobs/quarantine/release",
                   R"({"fingerprint":")" + lease_class + R"(","dry_run":true})");
  ASSERT_EQ(dry.status, 200) << dry.raw.body;
  EXPECT_EQ(dry["selected_count"], 2);
  Reply released =
      Post("/api/v1/jobs/quarantine/release", R"({"fingerprint":")" + timeout_class + R"("})");
  ASSERT_EQ(released.status, 200) << released.raw.body;
  EXPECT_EQ(released["released_count"], 1);
  EXPECT_EQ(Get("/api/v1/jobs/" + timed_out)["status"], "pending");
  EXPECT_EQ(Get("/api/v1/jobs/" + lost)["status"], "quarantined");
  EXPECT_EQ(Post("/api/v1/jobs/quarantine/release", R"({"fingerprint":"nope"})").Field(),
            "fingerprint");
  EXPECT_EQ(Post("/api/v1/jobs/quarantine/release",
                 R"({"job_ids":["a"],"fingerprint":")" + lease_class + R"("})")
                .Field(),
            "job_ids");

  // A release operation, by class.
  Reply created = Post("/api/v1/operations", R"({"action":"release","selector":{"fingerprint":")" +
                                                 lease_class + R"("}})");
  ASSERT_EQ(created.status, 202) << created.raw.body;
  EXPECT_EQ(created["matched"], 2);
  EXPECT_EQ(RunToEnd(Str(created["id"]))["done"], 2);
  EXPECT_EQ(Get("/api/v1/jobs/" + lost)["status"], "pending");
  EXPECT_EQ(Get("/api/v1/jobs/" + lost2)["status"], "pending");
  EXPECT_TRUE(Get("/api/v1/jobs?status=quarantined").json.as_array().empty());
}

}  // namespace
}  // namespace redrive::api::testing
