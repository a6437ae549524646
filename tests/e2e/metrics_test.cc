// GET /metrics on the real binary: Prometheus text that counts an enqueue.
#include <gtest/gtest.h>

#include "e2e/support/api_fixture.h"

namespace redrive::e2e {
namespace {

class MetricsTest : public ApiTest {};

TEST_F(MetricsTest, CountsAnEnqueue) {
  const auto q = NewQueue("metrics");
  Enqueue(q);
  HttpResponse r = client_->Get("/metrics");
  ASSERT_EQ(r.status, 200) << r.error << r.body;
  ASSERT_NE(r.header("content-type"), nullptr);
  EXPECT_EQ(*r.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(r.body.find("# TYPE redrive_jobs_enqueued_total counter"), std::string::npos);
  EXPECT_NE(r.body.find("redrive_jobs_enqueued_total{queue=\"" + q + "\"} 1\n"), std::string::npos)
      << r.body;
  EXPECT_NE(r.body.find("redrive_jobs{queue=\"" + q + "\",status=\"pending\"} 1\n"),
            std::string::npos);
}

}  // namespace
}  // namespace redrive::e2e
