// /workflows and /jobs/{id}/dependencies through Api::Handle: Spooled's
// shapes, every bad input a 4xx naming the field or key, a diamond run
// through claim and complete, cancel and retry, roles, parent_job_id and
// the workflow webhooks.
#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

constexpr char kDiamond[] =
    R"({"name":"etl","description":"nightly","metadata":{"owner":"data"},"jobs":[)"
    R"({"key":"a","queue_name":"etl","payload":{"step":1},"max_retries":0},)"
    R"({"key":"b","queue_name":"etl","payload":{"step":2},"depends_on":["a"]},)"
    R"({"key":"c","queue_name":"etl","payload":{"step":3},"depends_on":["a"]},)"
    R"({"key":"d","queue_name":"etl","payload":{"step":4},"depends_on":["b","c"],)"
    R"("dependency_mode":"all"}]})";

class ApiWorkflowsTest : public ApiTest {
 protected:
  // Creates kDiamond; returns the workflow id and fills keys_.
  std::string Create(const std::string& body = kDiamond) {
    Reply r = Post("/api/v1/workflows", body);
    EXPECT_EQ(r.status, 201) << r.raw.body;
    if (r.status != 201) return "";
    for (const auto& j : r["job_ids"].as_array()) {
      keys_[Str(j.at("key"))] = Str(j.at("job_id"));
    }
    return Str(r["workflow_id"]);
  }
  // Claims one job of etl and completes it; returns its id.
  std::string RunOne() {
    boost::json::object job = ClaimOne("etl");
    if (job.empty()) return "";
    const std::string id = Str(job.at("id"));
    Reply done = Post("/api/v1/jobs/" + id + "/complete",
                      R"({"worker_id":"w1","lease_id":")" + Str(job.at("lease_id")) + "\"}");
    EXPECT_EQ(done.status, 200) << done.raw.body;
    return id;
  }
  // The field a refused create names (400).
  std::string Refused(const std::string& body) {
    Reply r = Post("/api/v1/workflows", body);
    EXPECT_EQ(r.status, 400) << body << " → " << r.raw.body;
    return r.status == 400 ? r.Field() : "";
  }
  std::map<std::string, std::string> keys_;
};

TEST_F(ApiWorkflowsTest, CreateAnswersTheWorkflowIdAndTheJobIdOfEachKey) {
  Reply r = Post("/api/v1/workflows", kDiamond);
  ASSERT_EQ(r.status, 201) << r.raw.body;
  EXPECT_EQ(r["job_ids"].as_array().size(), 4u);
  EXPECT_EQ(r["job_ids"].as_array()[0].at("key"), "a");
  EXPECT_EQ(r["status"], "pending");
  const std::string id = Str(r["workflow_id"]);
  Reply w = Get("/api/v1/workflows/" + id);
  ASSERT_EQ(w.status, 200) << w.raw.body;
  EXPECT_EQ(Str(w["id"]), id);
  EXPECT_EQ(w["name"], "etl");
  EXPECT_EQ(w["description"], "nightly");
  EXPECT_EQ(w["metadata"].at("owner"), "data");
  EXPECT_EQ(w["total_jobs"], 4);
  EXPECT_EQ(w["completed_jobs"], 0);
  EXPECT_EQ(w["failed_jobs"], 0);
  EXPECT_EQ(w["progress_percent"], 0);
  EXPECT_EQ(w["counts"].at("blocked"), 3);
  EXPECT_TRUE(w["completed_at"].is_null());
  Reply list = Get("/api/v1/workflows");
  ASSERT_EQ(list.status, 200);
  ASSERT_EQ(list.json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/workflows?status=pending").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/workflows?status=failed").json.as_array().size(), 0u);
  EXPECT_EQ(Get("/api/v1/workflows?status=blocked").Field(), "status");
  EXPECT_EQ(Get("/api/v1/workflows/nope").status, 404);
}

TEST_F(ApiWorkflowsTest, EveryBadDefinitionIs400NamingTheFieldOrKey) {
  const std::string job = R"("queue_name":"q","payload":{})";
  EXPECT_EQ(Refused(R"({"jobs":[{"key":"a",)" + job + "}]}"), "name");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[]})"), "jobs");
  EXPECT_EQ(Refused(R"({"name":"w"})"), "jobs");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[{"key":"a",)" + job + "}],\"x\":1}"), "x");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[{"key":"a",)" + job + R"(,"idempotency_key":"k"}]})"),
            "jobs[0].idempotency_key");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[{)" + job + "}]}"), "jobs[0].key");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[{"key":"a","payload":{}}]})"), "jobs[0].queue_name");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[{"key":"a",)" + job + R"(,"dependency_mode":"some"}]})"),
            "jobs[0].dependency_mode");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[{"key":"a",)" + job + R"(},{"key":"a",)" + job + "}]}"),
            "jobs[1].key");
  EXPECT_EQ(Refused(R"({"name":"w","jobs":[{"key":"a",)" + job + R"(,"depends_on":["a"]}]})"),
            "jobs[0].depends_on[0]");
  Reply unknown = Post("/api/v1/workflows", R"({"name":"w","jobs":[{"key":"a",)" + job +
                                                R"(,"depends_on":["ghost"]}]})");
  EXPECT_EQ(unknown.status, 400);
  EXPECT_NE(Str(unknown["message"]).find("'ghost'"), std::string::npos) << unknown.raw.body;
  Reply cycle = Post("/api/v1/workflows", R"({"name":"w","jobs":[{"key":"a",)" + job +
                                              R"(,"depends_on":["b"]},)" + R"({"key":"b",)" + job +
                                              R"(,"depends_on":["a"]}]})");
  EXPECT_EQ(cycle.status, 400);
  EXPECT_EQ(cycle.Code(), "VALIDATION_ERROR");
  EXPECT_NE(Str(cycle["message"]).find("cycle"), std::string::npos) << cycle.raw.body;
  // Nothing of the refused workflows was created.
  EXPECT_EQ(Get("/api/v1/workflows").json.as_array().size(), 0u);
  EXPECT_EQ(Get("/api/v1/jobs/stats")["pending"], 0);
}

// The dashboard counted six of the eight statuses: a workflow's blocked
// jobs were missing from its total and by_status.
TEST_F(ApiWorkflowsTest, TheDashboardCountsBlockedJobs) {
  ASSERT_FALSE(Create().empty());
  Reply r = Get("/api/v1/dashboard");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  const auto& jobs = r["jobs"].as_object();
  EXPECT_EQ(jobs.at("total"), 4);
  EXPECT_EQ(jobs.at("pending"), 1);
  EXPECT_EQ(jobs.at("by_status").at("blocked"), 3);
}

TEST_F(ApiWorkflowsTest, ADiamondRunsThroughClaimAndComplete) {
  const std::string id = Create();
  EXPECT_EQ(RunOne(), keys_["a"]);
  const std::string second = RunOne();
  const std::string third = RunOne();
  EXPECT_NE(second, keys_["d"]);
  EXPECT_NE(third, keys_["d"]);
  EXPECT_EQ(RunOne(), keys_["d"]);
  Reply w = Get("/api/v1/workflows/" + id);
  EXPECT_EQ(w["status"], "completed");
  EXPECT_EQ(w["completed_jobs"], 4);
  EXPECT_EQ(w["progress_percent"], 100);
  EXPECT_FALSE(w["completed_at"].is_null());

  Reply jobs = Get("/api/v1/workflows/" + id + "/jobs");
  ASSERT_EQ(jobs.status, 200) << jobs.raw.body;
  ASSERT_EQ(jobs.json.as_array().size(), 4u);
  const auto& d = jobs.json.as_array()[3].as_object();
  EXPECT_EQ(d.at("key"), "d");
  EXPECT_EQ(Str(d.at("workflow_id")), id);
  EXPECT_EQ(d.at("status"), "completed");
  EXPECT_EQ(d.at("dependency_mode"), "all");
  EXPECT_EQ(d.at("depends_on").as_array().size(), 2u);
  EXPECT_EQ(d.at("payload").at("step"), 4);
  Reply one = Get("/api/v1/workflows/" + id + "/jobs/" + keys_["b"]);
  ASSERT_EQ(one.status, 200) << one.raw.body;
  EXPECT_EQ(Str(one["depends_on"].as_array()[0]), keys_["a"]);
  EXPECT_EQ(Get("/api/v1/workflows/" + id + "/jobs/nope").status, 404);
  Reply statuses = Get("/api/v1/workflows/" + id + "/jobs/status");
  ASSERT_EQ(statuses.status, 200) << statuses.raw.body;
  EXPECT_EQ(statuses.json.as_array()[0].at("key"), "a");
  EXPECT_EQ(statuses.json.as_array()[0].at("status"), "completed");
}

TEST_F(ApiWorkflowsTest, AFailureBlocksTheRestAndRetryResumes) {
  const std::string id = Create();
  boost::json::object a = ClaimOne("etl");
  Reply fail =
      Post("/api/v1/jobs/" + Str(a.at("id")) + "/fail",
           R"({"worker_id":"w1","error":"boom","lease_id":")" + Str(a.at("lease_id")) + "\"}");
  ASSERT_EQ(fail.status, 200) << fail.raw.body;
  Reply w = Get("/api/v1/workflows/" + id);
  EXPECT_EQ(w["status"], "failed");
  EXPECT_EQ(w["failed_jobs"], 1);
  Reply deps = Get("/api/v1/jobs/" + keys_["d"] + "/dependencies");
  ASSERT_EQ(deps.status, 200) << deps.raw.body;
  EXPECT_EQ(deps["status"], "blocked");
  EXPECT_EQ(deps["dependencies_met"], false);
  EXPECT_EQ(deps["dependencies"].as_array().size(), 2u);
  EXPECT_EQ(deps["dependencies"].as_array()[0].at("dependency_type"), "completion");
  Reply of_a = Get("/api/v1/jobs/" + keys_["a"] + "/dependencies");
  EXPECT_EQ(of_a["dependents"].as_array().size(), 2u);
  EXPECT_EQ(of_a["dependencies_met"], true);

  Reply retried = Post("/api/v1/workflows/" + id + "/retry", "");
  ASSERT_EQ(retried.status, 200) << retried.raw.body;
  EXPECT_EQ(retried["status"], "pending");
  EXPECT_EQ(RunOne(), keys_["a"]);
  RunOne();
  RunOne();
  EXPECT_EQ(RunOne(), keys_["d"]);
  EXPECT_EQ(Post("/api/v1/workflows/" + id + "/retry", "").status, 409);
  EXPECT_EQ(Post("/api/v1/workflows/" + id + "/cancel", "").status, 409);
}

TEST_F(ApiWorkflowsTest, CancelCancelsEveryUnfinishedJob) {
  const std::string id = Create();
  Reply c = Post("/api/v1/workflows/" + id + "/cancel", "");
  ASSERT_EQ(c.status, 200) << c.raw.body;
  EXPECT_EQ(c["status"], "cancelled");
  EXPECT_EQ(c["counts"].at("cancelled"), 4);
  EXPECT_EQ(Post("/api/v1/workflows/nope/cancel", "").status, 404);
}

TEST_F(ApiWorkflowsTest, DependenciesAreAddedInEitherDialect) {
  const std::string first = Enqueue("q");
  const std::string second = Enqueue("q");
  Reply added = Post("/api/v1/jobs/" + second + "/dependencies",
                     R"({"depends_on_job_ids":[")" + first + R"("]})");
  ASSERT_EQ(added.status, 200) << added.raw.body;
  EXPECT_EQ(added["added"], 1);
  EXPECT_EQ(added["dependencies_added"], 1);
  EXPECT_EQ(added["dependencies_met"], false);
  EXPECT_EQ(added["status"], "blocked");
  EXPECT_EQ(Str(added["dependencies"].as_array()[0].at("depends_on_job_id")), first);
  // The backend's shape; the edge exists already.
  Reply again = Post("/api/v1/jobs/" + second + "/dependencies",
                     R"({"depends_on":[")" + first + R"("],"dependency_mode":"all"})");
  EXPECT_EQ(again["added"], 0);
  EXPECT_EQ(
      Post("/api/v1/jobs/" + first + "/dependencies", R"({"depends_on":[")" + second + R"("]})")
          .Field(),
      "depends_on[0]");
  EXPECT_EQ(Post("/api/v1/jobs/" + first + "/dependencies", R"({"depends_on":[]})").Field(),
            "depends_on");
  EXPECT_EQ(Post("/api/v1/jobs/" + first + "/dependencies",
                 R"({"depends_on":["x"],"dependency_type":"failure"})")
                .Field(),
            "dependency_type");
  EXPECT_EQ(Post("/api/v1/jobs/" + first + "/dependencies", R"({"depends_on":["nope"]})").status,
            404);
  EXPECT_EQ(Get("/api/v1/jobs/nope/dependencies").status, 404);
  EXPECT_EQ(Get("/api/v1/jobs?status=blocked").json.as_array().size(), 1u);
  EXPECT_EQ(Get("/api/v1/jobs/stats")["blocked"], 1);
}

TEST_F(ApiWorkflowsTest, ParentJobIdMakesTheJobWaitForItsParent) {
  const std::string parent = Enqueue("q");
  Reply child =
      Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"parent_job_id":")" + parent + "\"}");
  ASSERT_EQ(child.status, 201) << child.raw.body;
  EXPECT_EQ(Get("/api/v1/jobs/" + Str(child["id"]))["status"], "blocked");
  Reply orphan = Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"parent_job_id":"x"})");
  EXPECT_EQ(orphan.status, 400);
  EXPECT_EQ(orphan.Field(), "parent_job_id");
}

TEST_F(ApiWorkflowsTest, GetJobCarriesSpooledsWorkflowAndDependencyFields) {
  const std::string id = Create();
  Reply root = Get("/api/v1/jobs/" + keys_["a"]);
  ASSERT_EQ(root.status, 200) << root.raw.body;
  EXPECT_EQ(Str(root["workflow_id"]), id);
  EXPECT_TRUE(root["parent_job_id"].is_null());
  EXPECT_TRUE(root["dependency_mode"].is_null());
  EXPECT_EQ(root["dependencies_met"], true);
  // b waits for a alone: a is its parent.
  Reply b = Get("/api/v1/jobs/" + keys_["b"]);
  EXPECT_EQ(Str(b["parent_job_id"]), keys_["a"]);
  EXPECT_EQ(b["dependency_mode"], "all");
  EXPECT_EQ(b["dependencies_met"], false);
  // d waits for two jobs: no single parent.
  Reply d = Get("/api/v1/jobs/" + keys_["d"]);
  EXPECT_TRUE(d["parent_job_id"].is_null());
  EXPECT_EQ(d["dependency_mode"], "all");
  EXPECT_EQ(d["dependencies_met"], false);
  EXPECT_EQ(RunOne(), keys_["a"]);
  EXPECT_EQ(Get("/api/v1/jobs/" + keys_["b"])["dependencies_met"], true);
  EXPECT_EQ(Get("/api/v1/jobs/" + keys_["d"])["dependencies_met"], false);

  // A job outside any workflow, created with parent_job_id.
  const std::string plain = Enqueue("q");
  Reply p = Get("/api/v1/jobs/" + plain);
  EXPECT_TRUE(p["workflow_id"].is_null());
  EXPECT_TRUE(p["parent_job_id"].is_null());
  EXPECT_EQ(p["dependencies_met"], true);
  Reply child =
      Post("/api/v1/jobs", R"({"queue_name":"q","payload":{},"parent_job_id":")" + plain + "\"}");
  ASSERT_EQ(child.status, 201) << child.raw.body;
  Reply c = Get("/api/v1/jobs/" + Str(child["id"]));
  EXPECT_EQ(Str(c["parent_job_id"]), plain);
  EXPECT_TRUE(c["workflow_id"].is_null());
  EXPECT_EQ(c["dependencies_met"], false);
}

TEST_F(ApiWorkflowsTest, ViewersReadWorkersCreateAdminsCancel) {
  const std::string id = Create();
  ApiOptions o;
  o.keys = {
      {Role::kAdmin, "admin-key"}, {Role::kViewer, "viewer-key"}, {Role::kWorker, "worker-key"}};
  Reconfigure(o);
  const std::string path = "/api/v1/workflows/" + id;
  EXPECT_EQ(Get(path, "viewer-key").status, 200);
  Reply jobs = Get(path + "/jobs", "viewer-key");
  ASSERT_EQ(jobs.status, 200);
  EXPECT_FALSE(jobs.json.as_array()[0].as_object().contains("payload"));
  EXPECT_EQ(Post("/api/v1/workflows", kDiamond, "worker-key").status, 201);
  EXPECT_EQ(Post("/api/v1/workflows", kDiamond, "viewer-key").status, 403);
  EXPECT_EQ(Post(path + "/cancel", "", "worker-key").status, 403);
  EXPECT_EQ(Post(path + "/cancel", "", "admin-key").status, 200);
}

TEST_F(ApiWorkflowsTest, WorkflowWebhooksAreWrittenToTheOutbox) {
  Reply hook =
      Post("/api/v1/outgoing-webhooks", R"({"name":"wf","url":"https://example.com/hook",)"
                                        R"("events":["workflow.completed","workflow.failed"]})");
  ASSERT_EQ(hook.status, 201) << hook.raw.body;
  const std::string hook_id = Str(hook["id"]);
  Create(R"({"name":"one","jobs":[{"key":"a","queue_name":"etl","payload":{}}]})");
  RunOne();
  Reply deliveries = Get("/api/v1/outgoing-webhooks/" + hook_id + "/deliveries");
  ASSERT_EQ(deliveries.status, 200) << deliveries.raw.body;
  ASSERT_EQ(deliveries.json.as_array().size(), 1u) << deliveries.raw.body;
  EXPECT_EQ(deliveries.json.as_array()[0].at("event"), "workflow.completed");
}

}  // namespace
}  // namespace redrive::api::testing
