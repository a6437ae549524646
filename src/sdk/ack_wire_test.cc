// An ack and its answer on the wire, as the SDK writes and reads them: a
// failure's details go out, and a failure's answer comes back with the fields
// of POST /jobs/{id}/fail's (retry_count, scheduled_at, dead_reason).
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "sdk/request_encoding.h"
#include "sdk/response_decoding.h"

namespace redrive::sdk {
namespace {

TEST(AckWireTest, AFailureAckCarriesItsDetails) {
  Ack ack = Ack::Fail("j1", "l1", "exit 3", true, std::chrono::milliseconds(0),
                      boost::json::object{{"exit_code", 3}});
  EXPECT_EQ(AckToJson(ack), boost::json::parse(R"({"id":"j1","lease_id":"l1","error":"exit 3",
      "no_retry":true,"retry_after_ms":0,"details":{"exit_code":3}})"));
  // Without details, the ack is what it was.
  EXPECT_EQ(AckToJson(Ack::Fail("j1", "l1", "boom")),
            boost::json::parse(R"({"id":"j1","lease_id":"l1","error":"boom"})"));
}

TEST(AckWireTest, AFailureAnswerThatWillRetryDecodes) {
  auto r = AckResultFromJson(boost::json::parse(
      R"({"id":"j1","success":true,"status":"scheduled","will_retry":true,"retry_count":2,
          "scheduled_at":"2026-11-29T14:24:19.328Z"})"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->success);
  EXPECT_EQ(r->status, JobStatus::kScheduled);
  EXPECT_EQ(r->will_retry, true);
  EXPECT_EQ(r->retry_count, 2);
  auto fail = FailResultFromJson(boost::json::parse(
      R"({"success":true,"status":"scheduled","will_retry":true,"retry_count":2,
          "scheduled_at":"2026-11-29T14:24:19.328Z"})"));
  ASSERT_TRUE(fail.ok());
  ASSERT_TRUE(r->scheduled_at);
  EXPECT_EQ(r->scheduled_at, fail->scheduled_at);  // decoded alike
  EXPECT_EQ(r->dead_reason, DeadReason::kNone);
}

TEST(AckWireTest, AFailureAnswerThatDeadLettersDecodesItsReason) {
  auto r = AckResultFromJson(boost::json::parse(
      R"({"id":"j1","success":true,"status":"deadletter","will_retry":false,"retry_count":0,
          "dead_reason":"non_retryable"})"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->will_retry, false);
  EXPECT_EQ(r->retry_count, 0);
  EXPECT_FALSE(r->scheduled_at);
  EXPECT_EQ(r->dead_reason, DeadReason::kNonRetryable);
}

TEST(AckWireTest, ACompletionOrARefusalHasNoFailureFields) {
  auto done =
      AckResultFromJson(boost::json::parse(R"({"id":"j1","success":true,"status":"completed"})"));
  ASSERT_TRUE(done.ok());
  EXPECT_FALSE(done->will_retry);
  EXPECT_FALSE(done->retry_count);
  EXPECT_FALSE(done->scheduled_at);
  EXPECT_EQ(done->dead_reason, DeadReason::kNone);
  auto refused = AckResultFromJson(
      boost::json::parse(R"({"id":"j1","success":false,"code":"LEASE_EXPIRED","message":"gone"})"));
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused->success);
  EXPECT_EQ(refused->error.code(), ErrorCode::kLeaseExpired);
  EXPECT_FALSE(refused->retry_count);
}

}  // namespace
}  // namespace redrive::sdk
