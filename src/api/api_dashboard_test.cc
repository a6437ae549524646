// GET /api/v1/dashboard through Api::Handle: Spooled's DashboardData shape,
// computed from the queue counts, the workers and the last hour of
// throughput samples.
#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

TEST_F(ApiTest, DashboardSummarizesJobsQueuesWorkersAndTheLastHour) {
  engine_->RunServicesOnce();  // the throughput baseline
  Enqueue("mail");
  Enqueue("mail");
  Enqueue("mail");
  Enqueue("sms");
  ClaimOne("mail");
  ASSERT_EQ(Post("/api/v1/workers/register", R"({"queue_name":"mail","hostname":"h"})").status,
            201);
  ASSERT_EQ(Post("/api/v1/queues/sms/pause", "{}").status, 200);
  clock_.Advance(std::chrono::seconds(10));
  engine_->RunServicesOnce();

  Reply r = Get("/api/v1/dashboard");
  ASSERT_EQ(r.status, 200) << r.raw.body;
  const auto& system = r["system"].as_object();
  EXPECT_EQ(system.at("version"), "0.1.0");
  EXPECT_EQ(system.at("database_status"), "healthy");
  EXPECT_GE(system.at("uptime_seconds").as_int64(), 10);
  const auto& jobs = r["jobs"].as_object();
  EXPECT_EQ(jobs.at("total"), 4);
  EXPECT_EQ(jobs.at("pending"), 3);
  EXPECT_EQ(jobs.at("processing"), 1);
  EXPECT_EQ(jobs.at("deadletter"), 0);
  EXPECT_EQ(jobs.at("completed_24h"), 0);
  EXPECT_EQ(jobs.at("failed_24h"), 0);
  EXPECT_EQ(jobs.at("avg_wait_time_ms"), 0);                 // the one claim took its job at once
  EXPECT_TRUE(jobs.at("avg_processing_time_ms").is_null());  // nothing completed
  EXPECT_EQ(r["queues"],
            boost::json::parse(R"([{"name":"mail","pending":2,"processing":1,"paused":false},)"
                               R"({"name":"sms","pending":1,"processing":0,"paused":true}])"));
  EXPECT_EQ(r["workers"], boost::json::parse(R"({"total":1,"healthy":1,"unhealthy":0})"));

  // Older than the console chart's 15 minutes, within the dashboard's hour.
  clock_.Advance(std::chrono::minutes(20));
  engine_->RunServicesOnce();
  r = Get("/api/v1/dashboard");
  EXPECT_GE(r["system"].at("uptime_seconds").as_int64(), 20 * 60);
  // The worker never beat again: offline, so not counted.
  EXPECT_EQ(r["workers"], boost::json::parse(R"({"total":0,"healthy":0,"unhealthy":0})"));
  const auto& recent = r["recent_activity"].as_object();
  EXPECT_EQ(recent.at("jobs_created_1h"), 4);
  EXPECT_EQ(recent.at("jobs_completed_1h"), 0);
  EXPECT_EQ(recent.at("window_seconds"), 3600);

  ASSERT_EQ(Post("/api/v1/workers/register", R"({"queue_name":"mail","hostname":"h2"})").status,
            201);
  EXPECT_EQ(Get("/api/v1/dashboard")["workers"],
            boost::json::parse(R"({"total":1,"healthy":1,"unhealthy":0})"));
  clock_.Advance(std::chrono::minutes(50));
  engine_->RunServicesOnce();
  EXPECT_EQ(Get("/api/v1/dashboard")["recent_activity"].at("jobs_created_1h"), 0);
}

TEST_F(ApiTest, DashboardIsForAdminsAndViewers) {
  Reconfigure({.keys = {{Role::kAdmin, "adm"}, {Role::kViewer, "view"}, {Role::kWorker, "wrk"}}});
  EXPECT_EQ(Get("/api/v1/dashboard", "view").status, 200);
  EXPECT_EQ(Get("/api/v1/dashboard", "wrk").status, 403);
  EXPECT_EQ(Get("/api/v1/dashboard").status, 401);
}

}  // namespace
}  // namespace redrive::api::testing
