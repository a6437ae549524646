// Workflows through the real binary (and, like every e2e suite, again on
// PostgreSQL): a diamond runs in dependency order, a dependency that
// dead-letters fails the workflow and holds what waits for it, that state
// survives a restart, a retry redrives it to completion, and the workflow's
// webhooks (workflow.failed, then workflow.completed) arrive signed.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "e2e/support/server_process.h"
#include "e2e/support/wait.h"
#include "e2e/support/webhook_receiver.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

constexpr char kSecret[] = "wf-secret";
constexpr char kQueue[] = "wf-e2e";

class WorkflowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(receiver_.listening());
    server_.options().extra_args = {"--webhook-allow-private-targets"};
    ASSERT_TRUE(server_.Start());
    Connect();
  }
  void TearDown() override {
    if (server_.running()) {
      EXPECT_EQ(server_.Stop(), 0) << server_.Stderr();
    }
  }
  void Connect() { client_ = std::make_unique<HttpClient>(server_.Client()); }

  JsonResponse Call(const std::string& method, const std::string& path,
                    const json::value& body = nullptr) {
    if (body.is_null()) return client_->JsonRequest(method, "/api/v1" + path);
    return client_->JsonRequest(method, "/api/v1" + path, body);
  }

  // Claims up to 10 jobs of the queue: their ids, sorted, and their leases.
  std::vector<std::pair<std::string, std::string>> ClaimAll() {
    JsonResponse r = Call("POST", "/jobs/claim",
                          json::object{{"queue_name", kQueue}, {"worker_id", "w1"}, {"limit", 10}});
    EXPECT_EQ(r.status, 200) << r.raw.body;
    std::vector<std::pair<std::string, std::string>> out;
    if (r.status != 200) return out;
    for (const json::value& j : r.body.at("jobs").as_array()) {
      out.emplace_back(std::string(j.at("id").as_string()),
                       std::string(j.at("lease_id").as_string()));
    }
    std::sort(out.begin(), out.end());
    return out;
  }
  void Complete(const std::pair<std::string, std::string>& job) {
    JsonResponse r = Call("POST", "/jobs/" + job.first + "/complete",
                          json::object{{"worker_id", "w1"}, {"lease_id", job.second}});
    EXPECT_EQ(r.status, 200) << r.raw.body;
  }
  std::string StatusOfWorkflow(const std::string& id) {
    JsonResponse r = Call("GET", "/workflows/" + id);
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? std::string(r.body.at("status").as_string()) : "";
  }
  std::string StatusOfJob(const std::string& id) {
    JsonResponse r = Call("GET", "/jobs/" + id);
    return r.status == 200 ? std::string(r.body.at("status").as_string()) : "";
  }

  WebhookReceiver receiver_;
  ServerProcess server_;
  std::unique_ptr<HttpClient> client_;
};

TEST_F(WorkflowsTest, ADiamondRunsInOrderFailsHoldsSurvivesARestartAndIsRetried) {
  ASSERT_EQ(Call("POST", "/outgoing-webhooks",
                 json::object{{"name", "wf"},
                              {"url", receiver_.url()},
                              {"events", json::array{"workflow.failed", "workflow.completed"}},
                              {"secret", kSecret}})
                .status,
            201);
  auto job = [](const char* key, json::array depends_on) {
    return json::object{{"key", key},
                        {"queue_name", kQueue},
                        {"payload", json::object{{"step", key}}},
                        {"max_retries", 0},
                        {"depends_on", std::move(depends_on)}};
  };
  JsonResponse created =
      Call("POST", "/workflows",
           json::object{{"name", "diamond"},
                        {"jobs", json::array{job("a", {}), job("b", {"a"}), job("c", {"a"}),
                                             job("d", {"b", "c"})}}});
  ASSERT_EQ(created.status, 201) << created.raw.body;
  const std::string wf(created.body.at("workflow_id").as_string());
  std::map<std::string, std::string> id;
  for (const json::value& v : created.body.at("job_ids").as_array()) {
    id[std::string(v.at("key").as_string())] = std::string(v.at("job_id").as_string());
  }
  EXPECT_EQ(StatusOfJob(id["d"]), "blocked");

  // Only the root is claimable; its completion frees b and c, not d.
  auto first = ClaimAll();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].first, id["a"]);
  Complete(first[0]);
  auto second = ClaimAll();
  ASSERT_EQ(second.size(), 2u);
  std::set<std::string> got{second[0].first, second[1].first};
  EXPECT_EQ(got, (std::set<std::string>{id["b"], id["c"]}));
  const auto& b = second[0].first == id["b"] ? second[0] : second[1];
  const auto& c = second[0].first == id["c"] ? second[0] : second[1];
  Complete(b);
  EXPECT_EQ(StatusOfJob(id["d"]), "blocked");  // c is still running
  JsonResponse fail = Call(
      "POST", "/jobs/" + c.first + "/fail",
      json::object{{"worker_id", "w1"}, {"lease_id", c.second}, {"error", "warehouse timeout"}});
  ASSERT_EQ(fail.status, 200) << fail.raw.body;
  EXPECT_EQ(StatusOfWorkflow(wf), "failed");
  JsonResponse deps = Call("GET", "/jobs/" + id["d"] + "/dependencies");
  EXPECT_EQ(deps.body.at("readiness"), "blocked_forever");
  EXPECT_TRUE(ClaimAll().empty());

  // The state is the store's: a restart changes nothing.
  ASSERT_TRUE(server_.Restart()) << server_.Stderr();
  Connect();
  EXPECT_EQ(StatusOfWorkflow(wf), "failed");
  EXPECT_EQ(StatusOfJob(id["d"]), "blocked");

  // Retry redrives c; its completion frees d; d's completes the workflow.
  JsonResponse retried = Call("POST", "/workflows/" + wf + "/retry");
  ASSERT_EQ(retried.status, 200) << retried.raw.body;
  auto again = ClaimAll();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].first, id["c"]);
  Complete(again[0]);
  auto last = ClaimAll();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].first, id["d"]);
  Complete(last[0]);
  EXPECT_EQ(StatusOfWorkflow(wf), "completed");
  JsonResponse done = Call("GET", "/workflows/" + wf);
  EXPECT_EQ(done.body.at("progress_percent"), 100);
  EXPECT_EQ(done.body.at("completed_jobs"), 4);

  // Its webhooks, signed, in the order they happened.
  ASSERT_TRUE(receiver_.WaitForRequests(2, 10s)) << server_.Stderr();
  std::vector<std::string> events;
  for (const ReceivedRequest& r : receiver_.Requests()) {
    const std::string ts = r.header("x-redrive-timestamp");
    EXPECT_EQ(r.header("x-redrive-signature"),
              "sha256=" + HmacSha256HexForTest(kSecret, ts + "." + r.body));
    json::object body = json::parse(r.body).as_object();
    EXPECT_EQ(body.at("data").at("workflow_id"), json::value(wf));
    events.push_back(std::string(body.at("event").as_string()));
  }
  std::sort(events.begin(), events.end());
  EXPECT_EQ(events, (std::vector<std::string>{"workflow.completed", "workflow.failed"}));
}

}  // namespace
}  // namespace redrive::e2e
