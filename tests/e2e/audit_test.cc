// Operator changes against the real binary: an Idempotency-Key double submit
// redrives once and replays the first answer, and the audit log names the
// key that made each change, its reason and request id (keys named with
// ROLE@NAME:KEY).
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>

#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;

class AuditTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerOptions o;
    o.env = {
        {"REDRIVE_API_KEYS", "admin@oncall:adm-key:with:colons,admin:other-key,viewer:view-key"}};
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
                  const json::value& body = json::object(), const Headers& headers = {}) {
    HttpClient c = server_->Client();
    c.set_bearer_token(key);
    if (method == "GET") return c.JsonRequest(method, "/api/v1" + path);
    return c.JsonRequest(method, "/api/v1" + path, body, headers);
  }
  // A job of `queue` failed with no_retry: dead.
  std::string DeadJob(const std::string& queue) {
    auto enq = As("adm-key:with:colons", "POST", "/jobs",
                  json::object{{"queue_name", queue}, {"payload", {{"n", 1}}}});
    EXPECT_EQ(enq.status, 201) << enq.raw.body;
    auto claim = As("adm-key:with:colons", "POST", "/jobs/claim",
                    json::object{{"queue_name", queue}, {"worker_id", "w1"}});
    EXPECT_EQ(claim.status, 200) << claim.raw.body;
    const json::object& job = claim.body.at("jobs").as_array().at(0).as_object();
    const std::string id(job.at("id").as_string());
    auto fail = As("adm-key:with:colons", "POST", "/jobs/" + id + "/fail",
                   json::object{{"worker_id", "w1"},
                                {"lease_id", job.at("lease_id")},
                                {"error", "boom"},
                                {"no_retry", true}});
    EXPECT_EQ(fail.status, 200) << fail.raw.body;
    return id;
  }
  static ServerProcess* server_;
};
ServerProcess* AuditTest::server_ = nullptr;

TEST_F(AuditTest, DoubleSubmitRedrivesOnceAndTheLogSaysWhoAndWhy) {
  const std::string first = DeadJob("e2e-audit"), second = DeadJob("e2e-audit");
  const Headers headers = {{"Idempotency-Key", "e2e-double-submit"},
                           {"X-Redrive-Reason", "gateway fixed, INC-4411"},
                           {"X-Request-Id", "e2e-req-1"}};
  const json::object body{{"queue_name", "e2e-audit"}};
  auto once = As("adm-key:with:colons", "POST", "/jobs/dlq/retry", body, headers);
  ASSERT_EQ(once.status, 200) << once.raw.body;
  EXPECT_EQ(once.body.at("retried_count"), 2);
  EXPECT_EQ(once.raw.headers.count("idempotent-replayed"), 0u);

  // A dead job again (the claim takes the oldest pending one: a redriven
  // job): a second run of the redrive would revive it.
  const std::string dead_again = DeadJob("e2e-audit");
  auto twice = As("adm-key:with:colons", "POST", "/jobs/dlq/retry", body, headers);
  ASSERT_EQ(twice.status, 200) << twice.raw.body;
  EXPECT_EQ(twice.raw.body, once.raw.body);
  EXPECT_EQ(twice.raw.headers.at("idempotent-replayed"), "true");
  EXPECT_EQ(As("view-key", "GET", "/jobs/" + dead_again).body.at("status"), "deadletter");

  auto other = As("adm-key:with:colons", "POST", "/jobs/dlq/retry",
                  json::object{{"queue_name", "e2e-audit"}, {"limit", 1}}, headers);
  EXPECT_EQ(other.status, 409);
  EXPECT_EQ(other.body.at("details").at("field"), "Idempotency-Key");

  auto log = As("view-key", "GET", "/audit?action=dlq.retry&target=job:" + first);
  ASSERT_EQ(log.status, 200) << log.raw.body;
  const json::array& entries = log.body.at("entries").as_array();
  ASSERT_EQ(entries.size(), 1u);  // one change, one entry: no replay, no refusal before it
  const json::object& e = entries[0].as_object();
  EXPECT_EQ(e.at("actor"), "oncall");
  EXPECT_EQ(e.at("reason"), "gateway fixed, INC-4411");
  EXPECT_EQ(e.at("request_id"), "e2e-req-1");
  EXPECT_EQ(e.at("count"), 2);
  EXPECT_FALSE(e.contains("client_address"));  // a viewer's view
  std::vector<std::string> targets;
  for (const auto& t : e.at("targets").as_array()) targets.emplace_back(t.as_string());
  EXPECT_EQ(targets.size(), 2u);
  EXPECT_NE(std::find(targets.begin(), targets.end(), "job:" + second), targets.end());

  auto admin_view = As("other-key", "GET", "/audit?action=dlq.retry&limit=1");
  ASSERT_EQ(admin_view.status, 200);
  EXPECT_EQ(admin_view.body.at("entries").as_array()[0].at("client_address"), "127.0.0.1");
}

TEST_F(AuditTest, AnUnnamedKeyIsALabelNeverTheKey) {
  ASSERT_EQ(As("other-key", "POST", "/queues/e2e-audit-label/pause").status, 200);
  auto log = As("view-key", "GET", "/audit?target=queue:e2e-audit-label");
  ASSERT_EQ(log.status, 200);
  const std::string actor(log.body.at("entries").as_array().at(0).at("actor").as_string());
  EXPECT_EQ(actor.rfind("admin#", 0), 0u) << actor;
  EXPECT_EQ(actor.find("other-key"), std::string::npos);
  EXPECT_EQ(As("view-key", "POST", "/queues/e2e-audit-label/resume").status, 403);
}

}  // namespace
}  // namespace redrive::e2e
