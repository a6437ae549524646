// GET /metrics through Api::Handle over a real engine: the format, access,
// and that the values move as jobs flow.
#include <cstdlib>
#include <sstream>

#include "api/api_test_util.h"

namespace redrive::api::testing {
namespace {

class MetricsApiTest : public ApiTest {
 protected:
  // GET /metrics; the raw response (the JSON helpers expect JSON).
  Response Scrape(const std::string& key = "") {
    Request r;
    r.method = "GET";
    r.target = "/metrics";
    if (!key.empty()) r.headers["authorization"] = "Bearer " + key;
    auto promise = std::make_shared<std::promise<Response>>();
    auto future = promise->get_future();
    api_->Handle(std::move(r), [promise](Response res) { promise->set_value(std::move(res)); });
    EXPECT_EQ(future.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    return future.get();
  }

  // The value of the sample `series` (name plus label set, exactly as
  // rendered) in `text`; 0 when absent, as Prometheus treats a new series.
  static double Sample(const std::string& text, const std::string& series) {
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
          line[series.size()] == ' ') {
        return std::strtod(line.c_str() + series.size() + 1, nullptr);
      }
    }
    return 0;
  }
};

TEST_F(MetricsApiTest, ServesPrometheusText) {
  Enqueue("mq");
  Response r = Scrape();
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/plain; version=0.0.4; charset=utf-8");
  for (const char* family :
       {"redrive_jobs", "redrive_dlq_jobs", "redrive_dlq_oldest_age_seconds",
        "redrive_jobs_enqueued_total", "redrive_jobs_claimed_total", "redrive_jobs_completed_total",
        "redrive_job_failures_total", "redrive_retries_scheduled_total",
        "redrive_jobs_deadlettered_total", "redrive_jobs_redriven_total",
        "redrive_lease_expiries_total", "redrive_commits_total", "redrive_commit_batch_size",
        "redrive_http_requests_total", "redrive_http_request_duration_seconds"}) {
    EXPECT_NE(r.body.find(std::string("# TYPE ") + family + " "), std::string::npos) << family;
  }
}

TEST_F(MetricsApiTest, ValuesMoveAsJobsFlow) {
  const std::string before = Scrape().body;

  // A: claimed and completed. B (no retries): claimed, failed → DLQ.
  // C: left pending.
  std::string a = Enqueue("mq");
  auto claim_a = ClaimOne("mq");
  ASSERT_EQ(Str(claim_a["id"]), a);
  Reply done = Post("/api/v1/jobs/" + a + "/complete",
                    R"({"worker_id":"w1","lease_id":")" + Str(claim_a["lease_id"]) + R"("})");
  ASSERT_EQ(done.status, 200) << done.raw.body;
  std::string b = Enqueue("mq", R"(,"max_retries":0)");
  auto claim_b = ClaimOne("mq");
  ASSERT_EQ(Str(claim_b["id"]), b);
  Reply failed =
      Post("/api/v1/jobs/" + b + "/fail",
           R"({"worker_id":"w1","lease_id":")" + Str(claim_b["lease_id"]) + R"(","error":"boom"})");
  ASSERT_EQ(failed.status, 200) << failed.raw.body;
  Enqueue("mq");
  clock_.Advance(std::chrono::seconds(90));

  const std::string after = Scrape().body;
  auto delta = [&](const std::string& series) {
    return Sample(after, series) - Sample(before, series);
  };
  EXPECT_EQ(delta(R"(redrive_jobs_enqueued_total{queue="mq"})"), 3);
  EXPECT_EQ(delta(R"(redrive_jobs_claimed_total{queue="mq"})"), 2);
  EXPECT_EQ(delta(R"(redrive_jobs_completed_total{queue="mq"})"), 1);
  EXPECT_EQ(delta(R"(redrive_job_failures_total{queue="mq"})"), 1);
  EXPECT_EQ(delta(R"(redrive_retries_scheduled_total{queue="mq"})"), 0);
  EXPECT_EQ(delta(R"(redrive_jobs_deadlettered_total{queue="mq",reason="max_retries_exceeded"})"),
            1);
  EXPECT_EQ(Sample(after, R"(redrive_jobs{queue="mq",status="pending"})"), 1);
  EXPECT_EQ(Sample(after, R"(redrive_jobs{queue="mq",status="completed"})"), 1);
  EXPECT_EQ(Sample(after, R"(redrive_dlq_jobs{queue="mq"})"), 1);
  EXPECT_EQ(Sample(after, R"(redrive_dlq_oldest_age_seconds{queue="mq"})"), 90);
  EXPECT_EQ(
      delta(
          R"(redrive_http_requests_total{route="/api/v1/jobs/{id}/complete",method="POST",status="200"})"),
      1);
  EXPECT_EQ(
      delta(R"(redrive_http_requests_total{route="/api/v1/jobs",method="POST",status="201"})"), 3);
  EXPECT_EQ(delta(R"(redrive_http_request_duration_seconds_count{route="/api/v1/jobs/{id}/fail"})"),
            1);
  EXPECT_GE(delta("redrive_commits_total"), 7);
  EXPECT_GE(delta("redrive_commit_batch_size_count"), 7);

  // Redriving the dead job counts once.
  Reply redrive = Post("/api/v1/jobs/dlq/retry", R"({"queue_name":"mq"})");
  ASSERT_EQ(redrive.status, 200) << redrive.raw.body;
  EXPECT_EQ(Sample(Scrape().body, R"(redrive_jobs_redriven_total{queue="mq"})"), 1);
}

TEST_F(MetricsApiTest, LeaseExpiryCountsAFailureAndARetry) {
  Enqueue("lq", R"(,"timeout_seconds":5)");
  ClaimOne("lq");
  clock_.Advance(std::chrono::seconds(10));
  // The background loop may reap it first; the counters below tell either way.
  engine_->RunServicesOnce();
  const std::string text = Scrape().body;
  EXPECT_EQ(Sample(text, R"(redrive_lease_expiries_total{queue="lq"})"), 1);
  EXPECT_EQ(Sample(text, R"(redrive_job_failures_total{queue="lq"})"), 1);
  EXPECT_EQ(Sample(text, R"(redrive_retries_scheduled_total{queue="lq"})"), 1);
  EXPECT_EQ(Sample(text, R"(redrive_jobs_deadlettered_total{queue="lq",reason="lease_expired"})"),
            0);
}

TEST_F(MetricsApiTest, UnknownRoutesAreOneSeries) {
  Get("/api/v1/nothing/1");
  Get("/api/v1/nothing/2");
  const std::string text = Scrape().body;
  EXPECT_EQ(
      Sample(text, R"(redrive_http_requests_total{route="unmatched",method="GET",status="404"})"),
      2);
  EXPECT_EQ(text.find("nothing"), std::string::npos);
}

TEST_F(MetricsApiTest, WithKeysAnyValidKeyMayScrape) {
  ApiOptions options;
  options.keys = {{Role::kAdmin, "ak"}, {Role::kViewer, "vk"}, {Role::kWorker, "wk"}};
  Reconfigure(options);
  EXPECT_EQ(Scrape().status, 401);
  EXPECT_EQ(Scrape("wrong").status, 401);
  EXPECT_EQ(Scrape("vk").status, 200);
  EXPECT_EQ(Scrape("wk").status, 200);
  EXPECT_EQ(Scrape("ak").status, 200);
}

}  // namespace
}  // namespace redrive::api::testing
