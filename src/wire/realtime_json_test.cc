#include "wire/realtime_json.h"

#include <gtest/gtest.h>

namespace redrive::wire {
namespace {

RealtimeEvent Completed() {
  RealtimeEvent e;
  e.type = RealtimeEventType::kJobCompleted;
  e.at = InstantFromMicros(1'700'000'000'123'000);
  e.job_id = "j1";
  e.queue_name = "emails";
  e.duration_ms = 12;
  e.result = R"({"sent":true})";
  return e;
}

TEST(RealtimeJsonTest, SpooledEnvelopeWithSnakeCaseData) {
  EXPECT_EQ(RealtimeEventJson(Completed(), true),
            R"({"type":"JobCompleted","data":{"job_id":"j1","queue_name":"emails",)"
            R"("duration_ms":12,"result":{"sent":true},"timestamp":"2023-11-14T22:13:20.123Z"}})");
}

TEST(RealtimeJsonTest, ViewersGetNoResult) {
  EXPECT_EQ(RealtimeEventJson(Completed(), false).find("result"), std::string::npos);
}

TEST(RealtimeJsonTest, StatusChangeAndFailure) {
  RealtimeEvent e;
  e.type = RealtimeEventType::kJobStatusChange;
  e.job_id = "j1";
  e.queue_name = "q";
  e.old_status = JobStatus::kProcessing;
  e.new_status = JobStatus::kDeadletter;
  const std::string change = RealtimeEventJson(e, false);
  EXPECT_NE(change.find(R"("type":"JobStatusChange")"), std::string::npos);
  EXPECT_NE(change.find(R"("old_status":"processing","new_status":"deadletter")"),
            std::string::npos);
  e.type = RealtimeEventType::kJobFailed;
  e.error = "boom";
  e.retry_count = 2;
  e.will_retry = true;
  EXPECT_NE(RealtimeEventJson(e, false).find(R"("error":"boom","retry_count":2,"will_retry":true)"),
            std::string::npos);
}

TEST(RealtimeJsonTest, PingAndError) {
  const Instant t = InstantFromMicros(0);
  EXPECT_EQ(PingEventJson(t), R"({"type":"Ping","data":{"timestamp":"1970-01-01T00:00:00.000Z"}})");
  EXPECT_EQ(
      ErrorEventJson("dropped", t),
      R"({"type":"Error","data":{"message":"dropped","timestamp":"1970-01-01T00:00:00.000Z"}})");
}

}  // namespace
}  // namespace redrive::wire
