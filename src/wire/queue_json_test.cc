#include "wire/queue_json.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "core/time_format.h"
#include "wire/error_json.h"
#include "wire/worker_json.h"

namespace redrive::wire {
namespace {

TEST(QueueJsonTest, QueueViewShape) {
  QueueConfig config;
  config.queue_name = "emails";
  config.paused = true;
  config.paused_reason = "maintenance";
  StatusCounts counts;
  counts.pending = 2;
  counts.deadletter = 1;
  std::optional<Instant> oldest = ParseTime("2026-11-29T12:00:00Z");
  boost::json::object o = QueueViewToJson(config, counts, oldest);
  EXPECT_EQ(o.at("queue_name"), "emails");
  EXPECT_EQ(o.at("max_retries"), 3);
  EXPECT_EQ(o.at("default_timeout"), 300);
  EXPECT_EQ(o.at("enabled"), true);
  EXPECT_EQ(o.at("paused"), true);
  EXPECT_EQ(o.at("paused_reason"), "maintenance");
  EXPECT_EQ(o.at("counts"), boost::json::parse(R"({"pending":2,"scheduled":0,"processing":0,
      "completed":0,"deadletter":1,"cancelled":0,"quarantined":0,"blocked":0})"));
  EXPECT_EQ(o.at("crash_limit"), 3);
  EXPECT_EQ(o.at("max_snoozes"), 25);
  EXPECT_EQ(o.at("oldest_deadletter_at"), "2026-11-29T12:00:00.000Z");
  // Defaults: completed and cancelled kept 7 days, the DLQ forever.
  EXPECT_EQ(o.at("retention"), boost::json::parse(R"({"completed_seconds":604800,
      "deadletter_seconds":null,"cancelled_seconds":604800})"));
  EXPECT_EQ(o.at("backoff").at("base_ms"), 1000);
}

TEST(QueueJsonTest, JobStatsHasTotalAndFailed) {
  StatusCounts counts;
  counts.pending = 1;
  counts.completed = 4;
  boost::json::object o = JobStatsToJson(counts);
  EXPECT_EQ(o.at("total"), 5);
  EXPECT_EQ(o.at("failed"), 0);
  EXPECT_EQ(o.at("completed"), 4);
}

TEST(WorkerJsonTest, Shape) {
  WorkerInfo w;
  w.id = "w1";
  w.queue_name = "emails";
  w.hostname = "host-a";
  w.metadata_json = R"({"region":"eu"})";
  boost::json::object o = WorkerToJson(w);
  EXPECT_EQ(o.at("metadata").at("region"), "eu");
  EXPECT_EQ(o.at("status"), "healthy");
  EXPECT_TRUE(o.at("worker_type").is_null());
  EXPECT_TRUE(o.at("deregistered_at").is_null());
  EXPECT_EQ(o.at("last_heartbeat"), o.at("last_heartbeat_at"));
}

TEST(ErrorJsonTest, DetailsOnlyWithField) {
  boost::json::object plain = ErrorToJson(Status::NotFound("job not found"));
  EXPECT_EQ(plain.at("code"), "NOT_FOUND");
  EXPECT_EQ(plain.at("message"), "job not found");
  EXPECT_FALSE(plain.contains("details"));
  boost::json::object field = ErrorToJson(Status::Validation("jobs[3].payload", "bad"));
  EXPECT_EQ(field.at("code"), "VALIDATION_ERROR");
  EXPECT_EQ(field.at("details").at("field"), "jobs[3].payload");
  EXPECT_EQ(ErrorToJson(Status::Internal("x")).at("code"), "INTERNAL_ERROR");
}

}  // namespace
}  // namespace redrive::wire
