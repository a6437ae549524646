#include "wire/job_json.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "core/time_format.h"

namespace redrive::wire {
namespace {

Instant At(const char* text) { return *ParseTime(text); }

Job SampleJob() {
  Job job;
  job.id = "0190a0b0-0000-7000-8000-000000000001";
  job.queue_name = "emails";
  job.status = JobStatus::kProcessing;
  job.payload = R"({"to":"a@example.com"})";
  job.priority = 5;
  job.retry_count = 1;
  job.max_retries = 3;
  job.timeout_seconds = 60;
  job.last_error = "boom";
  job.tags = {{"tenant", "acme"}};
  job.created_at = At("2026-11-29T12:00:00.123Z");
  job.updated_at = At("2026-11-29T12:00:01Z");
  job.scheduled_at = job.created_at;
  job.started_at = At("2026-11-29T12:00:01Z");
  job.assigned_worker_id = "w1";
  job.lease_id = "lease-1";
  job.lease_expires_at = At("2026-11-29T12:00:31Z");
  job.attempts = 2;
  job.lease_expiries = 1;
  return job;
}

TEST(JobJsonTest, FullJobHasEveryContractField) {
  boost::json::object o = JobToJson(SampleJob());
  for (const char* key : {"id",
                          "organization_id",
                          "queue_name",
                          "status",
                          "payload",
                          "result",
                          "priority",
                          "retry_count",
                          "max_retries",
                          "timeout_seconds",
                          "backoff",
                          "last_error",
                          "dead_reason",
                          "tags",
                          "idempotency_key",
                          "error_fingerprint",
                          "created_at",
                          "updated_at",
                          "scheduled_at",
                          "started_at",
                          "completed_at",
                          "expires_at",
                          "deadlettered_at",
                          "assigned_worker_id",
                          "lease_id",
                          "lease_expires_at",
                          "attempts",
                          "lease_expiries",
                          "crash_count",
                          "crash_limit",
                          "snooze_count",
                          "max_snoozes"}) {
    EXPECT_TRUE(o.contains(key)) << key;
  }
  EXPECT_EQ(o.at("organization_id"), "default");
  EXPECT_EQ(o.at("status"), "processing");
  EXPECT_EQ(o.at("payload").at("to"), "a@example.com");  // embedded, not a string
  EXPECT_TRUE(o.at("result").is_null());
  EXPECT_TRUE(o.at("completed_at").is_null());
  EXPECT_TRUE(o.at("dead_reason").is_null());
  EXPECT_EQ(o.at("created_at"), "2026-11-29T12:00:00.123Z");
  EXPECT_EQ(o.at("started_at"), "2026-11-29T12:00:01.000Z");
  EXPECT_EQ(o.at("backoff"),
            boost::json::parse(R"({"base_ms":1000,"max_ms":60000,"jitter_ms":500})"));
  EXPECT_EQ(o.at("tags").at("tenant"), "acme");
  EXPECT_EQ(o.at("lease_expiries"), 1);
}

TEST(JobJsonTest, ViewerVariantOmitsPayloadAndResult) {
  Job job = SampleJob();
  job.result = "[1,2]";
  boost::json::object o = JobToJson(job, {.include_payload = false});
  EXPECT_FALSE(o.contains("payload"));
  EXPECT_FALSE(o.contains("result"));
  EXPECT_TRUE(o.contains("lease_id"));
  EXPECT_EQ(JobToJson(job).at("result"), boost::json::parse("[1,2]"));
}

TEST(JobJsonTest, SummaryLeavesOutPayloadAndLeaseAndAddsAttempt) {
  Job job = SampleJob();
  job.status = JobStatus::kDeadletter;
  job.dead_reason = DeadReason::kMaxRetriesExceeded;
  job.deadlettered_at = At("2026-11-29T13:00:00Z");
  boost::json::object o = JobSummaryToJson(job);
  for (const char* key :
       {"payload", "result", "assigned_worker_id", "lease_id", "lease_expires_at"}) {
    EXPECT_FALSE(o.contains(key)) << key;
  }
  EXPECT_EQ(o.at("attempt"), 1);
  EXPECT_EQ(o.at("retry_count"), 1);
  EXPECT_EQ(o.at("last_error"), "boom");
  EXPECT_EQ(o.at("dead_reason"), "max_retries_exceeded");
  EXPECT_EQ(o.at("deadlettered_at"), "2026-11-29T13:00:00.000Z");
}

TEST(JobJsonTest, ClaimedJobShape) {
  boost::json::object o = ClaimedJobToJson(SampleJob());
  EXPECT_EQ(o.size(), 11u);
  EXPECT_EQ(o.at("lease_id"), "lease-1");
  EXPECT_EQ(o.at("lease_expires_at"), "2026-11-29T12:00:31.000Z");
  EXPECT_EQ(o.at("payload").at("to"), "a@example.com");
  EXPECT_EQ(o.at("attempts"), 2);
}

TEST(JobJsonTest, StatusEntryShape) {
  boost::json::object o = JobStatusEntryToJson(SampleJob());
  EXPECT_EQ(o.size(), 6u);
  EXPECT_EQ(o.at("status"), "processing");
  EXPECT_TRUE(o.at("completed_at").is_null());
}

TEST(JobJsonTest, InvalidStoredTextIsEmbeddedAsString) {
  Job job = SampleJob();
  job.payload = "not json";
  EXPECT_EQ(JobToJson(job).at("payload"), "not json");
}

TEST(JobJsonTest, HistoryEntry) {
  // Initialized at once: assignments one by one draw a false
  // -Wmaybe-uninitialized from GCC 12 at -O3.
  const HistoryEntry e{.id = "h1",
                       .job_id = "j1",
                       .event_type = "retry_scheduled",
                       .details_json = R"({"error":"x","retry_count":1})",
                       .created_at = At("2026-11-29T12:00:00Z")};
  boost::json::object o = HistoryEntryToJson(e);
  EXPECT_TRUE(o.at("worker_id").is_null());
  EXPECT_TRUE(o.at("node_id").is_null());  // written by no node
  EXPECT_EQ(o.at("details").at("retry_count"), 1);
  EXPECT_EQ(o.at("event_type"), "retry_scheduled");
}

}  // namespace
}  // namespace redrive::wire
