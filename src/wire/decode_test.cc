// The decoders invert the encoders: X → JSON → X gives X back, for every
// field the JSON carries (times at the contract's millisecond resolution).
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "wire/error_decode.h"
#include "wire/error_json.h"
#include "wire/job_decode.h"
#include "wire/job_json.h"
#include "wire/queue_decode.h"
#include "wire/queue_json.h"
#include "wire/worker_json.h"

namespace redrive::wire {
namespace {

Instant T(int64_t ms) { return InstantFromMicros(1'800'000'000'000'000 + ms * 1000); }

TEST(DecodeTest, JobRoundTrips) {
  Job job;
  job.id = "j1";
  job.queue_name = "q";
  job.status = JobStatus::kDeadletter;
  job.payload = R"({"a":[1,2]})";
  job.result = "42";
  job.priority = -5;
  job.retry_count = 2;
  job.max_retries = 2;
  job.timeout_seconds = 60;
  job.backoff = {std::chrono::milliseconds(10), std::chrono::milliseconds(20),
                 std::chrono::milliseconds(0)};
  job.last_error = "boom";
  job.dead_reason = DeadReason::kMaxRetriesExceeded;
  job.tags = {{"k", "v"}};
  job.idempotency_key = "key";
  job.created_at = T(1);
  job.updated_at = T(2);
  job.scheduled_at = T(3);
  job.started_at = T(4);
  job.completed_at = T(5);
  job.expires_at = T(6);
  job.deadlettered_at = T(7);
  job.attempts = 3;
  job.lease_expiries = 1;
  job.crash_count = 2;
  job.crash_limit = 0;
  job.snooze_count = 4;
  job.max_snoozes = 9;
  auto decoded = JobFromJson(JobToJson(job));
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, job);
}

TEST(DecodeTest, JobNeedsAnId) {
  EXPECT_FALSE(JobFromJson(boost::json::parse(R"({"queue_name":"q"})")).ok());
  EXPECT_FALSE(JobFromJson(boost::json::parse("[]")).ok());
}

TEST(DecodeTest, DeadLetterGroupRoundTrips) {
  DeadLetterGroup g{"payments",
                    DeadReason::kNonRetryable,
                    "0123456789abcdef",
                    "card <str> declined",
                    "card 'x' declined",
                    12,
                    T(1),
                    T(2)};
  boost::json::object o = DeadLetterGroupToJson(g);
  EXPECT_EQ(o.size(), 10u);
  EXPECT_EQ(o.at("dead_reason"), "non_retryable");
  EXPECT_EQ(o.at("fingerprint"), "0123456789abcdef");
  EXPECT_EQ(o.at("normalized_error"), "card <str> declined");
  EXPECT_EQ(o.at("first_seen"), o.at("oldest_deadlettered_at"));
  EXPECT_EQ(o.at("last_seen"), o.at("newest_deadlettered_at"));
  auto decoded = DeadLetterGroupFromJson(o);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_EQ(*decoded, g);
  g.error.reset();  // jobs that died without an error (expired)
  g.fingerprint.reset();
  g.normalized_error.reset();
  EXPECT_TRUE(DeadLetterGroupToJson(g).at("error").is_null());
  EXPECT_EQ(*DeadLetterGroupFromJson(DeadLetterGroupToJson(g)), g);
  EXPECT_FALSE(DeadLetterGroupFromJson(boost::json::parse("{}")).ok());
}

TEST(DecodeTest, HistoryEntryRoundTrips) {
  HistoryEntry e{"h1", "j1", "retry_scheduled", "w1", R"({"error":"x"})", T(9), "node-a"};
  auto decoded = HistoryEntryFromJson(HistoryEntryToJson(e));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, e);
}

TEST(DecodeTest, QueueConfigAndCountsRoundTrip) {
  QueueConfig c;
  c.queue_name = "q";
  c.max_retries = 7;
  c.paused = true;
  c.paused_reason = "why";
  c.retention.deadletter = std::chrono::seconds(60);
  c.retention.completed = std::nullopt;
  c.created_at = T(1);
  c.updated_at = T(2);
  c.crash_limit = 0;
  c.max_snoozes = 1000;
  auto decoded = QueueConfigFromJson(QueueConfigToJson(c));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, c);
  StatusCounts counts;
  counts.pending = 3;
  counts.deadletter = 1;
  counts.quarantined = 5;
  auto back = StatusCountsFromJson(StatusCountsToJson(counts));
  EXPECT_EQ(back.pending, 3);
  EXPECT_EQ(back.deadletter, 1);
  EXPECT_EQ(back.quarantined, 5);
}

TEST(DecodeTest, WorkerRoundTrips) {
  WorkerInfo w;
  w.id = "w1";
  w.queue_name = "q";
  w.hostname = "h";
  w.worker_type = "cpp";
  w.max_concurrency = 4;
  w.metadata_json = R"({"r":"eu"})";
  w.current_jobs = 2;
  w.registered_at = T(1);
  w.last_heartbeat_at = T(2);
  auto decoded = WorkerFromJson(WorkerToJson(w));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(*decoded, w);
}

TEST(DecodeTest, ErrorsRoundTripAndFallBackToTheHttpStatus) {
  Status s(ErrorCode::kValidation, "bad", "jobs[1].payload");
  Status back = ErrorFromJson(ErrorToJson(s), 400);
  EXPECT_EQ(back.code(), ErrorCode::kValidation);
  EXPECT_EQ(back.message(), "bad");
  EXPECT_EQ(back.field(), "jobs[1].payload");
  EXPECT_EQ(ErrorFromJson(ErrorToJson(Status::LeaseExpired("x")), 409).code(),
            ErrorCode::kLeaseExpired);
  EXPECT_EQ(ErrorFromJson(nullptr, 409).code(), ErrorCode::kConflict);
  EXPECT_EQ(ErrorFromJson(nullptr, 502).code(), ErrorCode::kUnavailable);
  EXPECT_EQ(ErrorFromJson(nullptr, 429).code(), ErrorCode::kRateLimited);
}

TEST(DecodeTest, ParseErrorCodeInvertsErrorCodeName) {
  for (ErrorCode c : {ErrorCode::kOk, ErrorCode::kBadRequest, ErrorCode::kValidation,
                      ErrorCode::kUnauthorized, ErrorCode::kAccessDenied, ErrorCode::kNotFound,
                      ErrorCode::kMethodNotAllowed, ErrorCode::kConflict, ErrorCode::kLeaseExpired,
                      ErrorCode::kPayloadTooLarge, ErrorCode::kUnsupportedMediaType,
                      ErrorCode::kRateLimited, ErrorCode::kInternal, ErrorCode::kUnavailable}) {
    EXPECT_EQ(ParseErrorCode(ErrorCodeName(c)), c);
  }
  EXPECT_EQ(ParseErrorCode("SOMETHING_NEW"), ErrorCode::kInternal);
}

}  // namespace
}  // namespace redrive::wire
