// Auto-redrive through Api::Handle: PUT (create, then replace), GET with the
// live state, GET /autoredrive, DELETE, the audit entry of the operator
// route and the duty's, viewers reading but not writing, and every bad input
// (a 4xx naming the field).
#include <gtest/gtest.h>

#include "api/api_test_util.h"
#include "core/error_fingerprint.h"

namespace redrive::api::testing {
namespace {

constexpr char kError[] = "upstream 504";
constexpr char kPath[] = "/api/v1/queues/payments/autoredrive";

class ApiAutoredriveTest : public ApiTest {
 protected:
  std::string DeadJob() {
    std::string id = Enqueue("payments");
    std::string lease = Str(ClaimOne("payments").at("lease_id"));
    Reply r = Post("/api/v1/jobs/" + id + "/fail", R"({"worker_id":"w1","lease_id":")" + lease +
                                                       R"(","error":")" + kError +
                                                       R"(","no_retry":true})");
    EXPECT_EQ(r["status"], "deadletter");
    return id;
  }
  static std::string Class() { return ErrorFingerprint(kError); }
  Reply Put(const std::string& body, const std::string& key = "") {
    return Do("PUT", kPath, body, key);
  }
  // A 400 naming `field`.
  void ExpectRefused(const std::string& body, const std::string& field) {
    Reply r = Put(body);
    EXPECT_EQ(r.status, 400) << body << " -> " << r.raw.body;
    if (r.status == 400) {
      EXPECT_EQ(r["code"], "VALIDATION_ERROR") << r.raw.body;
      EXPECT_EQ(Str(r["details"].at("field")), field) << body << " -> " << r.raw.body;
    }
  }
};

TEST_F(ApiAutoredriveTest, PutCreatesThenReplacesAndGetShowsTheLiveState) {
  DeadJob();
  DeadJob();
  EXPECT_EQ(Get(kPath).status, 404);
  Reply created = Put(R"({"enabled":true,"fingerprint":")" + Class() +
                      R"(","cooldown_seconds":60,"canary_size":1,"rate_per_second":2.5})");
  ASSERT_EQ(created.status, 201) << created.raw.body;
  EXPECT_EQ(created["queue_name"], "payments");
  EXPECT_EQ(created["enabled"], true);
  EXPECT_EQ(Str(created["fingerprint"]), Class());
  EXPECT_TRUE(created["dead_reason"].is_null());
  EXPECT_EQ(created["cooldown_seconds"], 60);
  EXPECT_EQ(created["max_cooldown_seconds"], 21600);
  EXPECT_EQ(created["canary_size"], 1);
  EXPECT_EQ(created["rate_per_second"], 2.5);
  EXPECT_EQ(created["max_revivals_per_job"], 3);
  EXPECT_EQ(created["updated_by"], "local");
  EXPECT_EQ(created["eligible_count"], 2);
  EXPECT_EQ(created["state"].at("phase"), "cooling");

  clock_.Advance(std::chrono::seconds(60));
  engine_->RunServicesOnce();
  Reply live = Get(kPath);
  ASSERT_EQ(live.status, 200);
  EXPECT_EQ(live["state"].at("phase"), "canary");
  EXPECT_EQ(live["state"].at("batch_size"), 1);
  EXPECT_EQ(live["state"].at("batch_redriven"), 1);
  EXPECT_EQ(live["state"].at("last_decision"), "canary_started");
  EXPECT_EQ(live["eligible_count"], 1);

  // Replace: the switch off restarts the state (idle), counters stay.
  Reply off = Put(R"({"enabled":false,"fingerprint":")" + Class() + R"("})");
  ASSERT_EQ(off.status, 200) << off.raw.body;
  EXPECT_EQ(off["state"].at("phase"), "idle");
  EXPECT_EQ(off["state"].at("total_revived"), 1);
  EXPECT_EQ(off["cooldown_seconds"], 300);  // a PUT is the whole policy

  Reply all = Get("/api/v1/autoredrive");
  ASSERT_EQ(all.status, 200);
  ASSERT_EQ(all.json.as_array().size(), 1u);
  EXPECT_EQ(all.json.as_array()[0].at("queue_name"), "payments");

  // The operator's route and the duty's decision are both in the audit log.
  Reply audit = Get("/api/v1/audit?action=autoredrive.set");
  EXPECT_EQ(audit["entries"].as_array().size(), 2u);
  audit = Get("/api/v1/audit?actor=autoredrive");
  ASSERT_EQ(audit["entries"].as_array().size(), 1u);
  EXPECT_EQ(audit["entries"].as_array()[0].at("action"), "dlq.autoredrive");

  EXPECT_EQ(Do("DELETE", kPath).status, 204);
  EXPECT_EQ(Get(kPath).status, 404);
  EXPECT_EQ(Do("DELETE", kPath).status, 404);
}

TEST_F(ApiAutoredriveTest, BadInputIsRefusedWithItsField) {
  const std::string fp = R"("fingerprint":")" + Class() + R"(")";
  ExpectRefused("{}", "fingerprint");
  ExpectRefused(R"({"fingerprint":"xyz"})", "fingerprint");
  ExpectRefused(R"({"fingerprint":"zzzzzzzzzzzzzzzz"})", "fingerprint");
  ExpectRefused("{" + fp + R"(,"enabled":"yes"})", "enabled");
  ExpectRefused("{" + fp + R"(,"canary":3})", "canary");  // unknown field
  ExpectRefused("{" + fp + R"(,"canary_size":0})", "canary_size");
  ExpectRefused("{" + fp + R"(,"canary_size":101})", "canary_size");
  ExpectRefused("{" + fp + R"(,"rate_per_second":0})", "rate_per_second");
  ExpectRefused("{" + fp + R"(,"rate_per_second":10001})", "rate_per_second");
  ExpectRefused("{" + fp + R"(,"max_revivals_per_job":0})", "max_revivals_per_job");
  ExpectRefused("{" + fp + R"(,"max_revivals_per_job":101})", "max_revivals_per_job");
  ExpectRefused("{" + fp + R"(,"cooldown_seconds":0})", "cooldown_seconds");
  ExpectRefused("{" + fp + R"(,"cooldown_seconds":604801})", "cooldown_seconds");
  ExpectRefused("{" + fp + R"(,"cooldown_seconds":600,"max_cooldown_seconds":60})",
                "max_cooldown_seconds");
  ExpectRefused("{" + fp + R"(,"dead_reason":"tired"})", "dead_reason");
  EXPECT_EQ(Do("PUT", "/api/v1/queues/bad%20name!/autoredrive", "{" + fp + "}").status, 400);
  EXPECT_EQ(Put("[1]").status, 400);
  EXPECT_EQ(Get(kPath).status, 404);  // nothing was stored
  // A cooldown longer than the default max_cooldown lifts it.
  Reply long_cooldown = Put("{" + fp + R"(,"cooldown_seconds":86400})");
  EXPECT_EQ(long_cooldown.status, 201) << long_cooldown.raw.body;
  EXPECT_EQ(long_cooldown["max_cooldown_seconds"], 86400);
}

TEST_F(ApiAutoredriveTest, ViewersReadAndOnlyAdminsChange) {
  ApiOptions o;
  o.keys = {{Role::kAdmin, "admin-key"}, {Role::kViewer, "viewer-key"}};
  Reconfigure(o);
  const std::string body = R"({"enabled":true,"fingerprint":")" + Class() + R"("})";
  EXPECT_EQ(Put(body, "viewer-key").status, 403);
  EXPECT_EQ(Put(body, "admin-key").status, 201);
  EXPECT_EQ(Get(kPath, "viewer-key").status, 200);
  EXPECT_EQ(Get("/api/v1/autoredrive", "viewer-key").status, 200);
  EXPECT_EQ(Do("DELETE", kPath, "", "viewer-key").status, 403);
}

}  // namespace
}  // namespace redrive::api::testing
