#include "api/request_decoding.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "api/field_rules.h"
#include "api/job_decoding.h"

namespace redrive::api {
namespace {

Request Post(std::string body, std::string content_type = "application/json") {
  Request r;
  r.method = "POST";
  r.target = "/api/v1/jobs";
  r.body = std::move(body);
  if (!content_type.empty()) r.headers["content-type"] = content_type;
  return r;
}

TEST(ParseTargetTest, DecodesPathAndQuery) {
  auto t = ParseTarget("/api/v1/jobs?queue_name=a%2Eb&tag=k%3Dv&limit=5&limit=9&empty=");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->segments, (std::vector<std::string>{"api", "v1", "jobs"}));
  EXPECT_EQ(t->query.at("queue_name"), "a.b");
  EXPECT_EQ(t->query.at("tag"), "k=v");
  EXPECT_EQ(t->query.at("limit"), "5");  // first value counts
  EXPECT_FALSE(QueryString(t->query, "empty").has_value());
}

TEST(ParseTargetTest, RejectsNonOriginForm) {
  EXPECT_EQ(ParseTarget("http://x/y").status().code(), ErrorCode::kBadRequest);
  EXPECT_EQ(ParseTarget("jobs").status().code(), ErrorCode::kBadRequest);
}

TEST(ContentTypeTest, JsonWithParameters) {
  EXPECT_TRUE(IsJsonContentType("application/json"));
  EXPECT_TRUE(IsJsonContentType("Application/JSON; charset=utf-8"));
  EXPECT_FALSE(IsJsonContentType("text/plain"));
  EXPECT_FALSE(IsJsonContentType("application/jsonx"));
  EXPECT_FALSE(IsJsonContentType(""));
}

TEST(DecodeJsonBodyTest, Rules) {
  ServerLimits limits;
  EXPECT_TRUE(DecodeJsonBody(Post(""), limits)->empty());
  EXPECT_TRUE(DecodeJsonBody(Post("", ""), limits)->empty());
  EXPECT_EQ(DecodeJsonBody(Post("{}", "text/plain"), limits).status().code(),
            ErrorCode::kUnsupportedMediaType);
  EXPECT_EQ(DecodeJsonBody(Post("{}", ""), limits).status().code(),
            ErrorCode::kUnsupportedMediaType);
  EXPECT_EQ(DecodeJsonBody(Post("{"), limits).status().code(), ErrorCode::kBadRequest);
  EXPECT_EQ(DecodeJsonBody(Post("[1]"), limits).status().code(), ErrorCode::kBadRequest);
  EXPECT_EQ(DecodeJsonBody(Post(R"({"a":1})"), limits)->at("a"), 1);
  limits.max_body_bytes = 4;
  EXPECT_EQ(DecodeJsonBody(Post(R"({"a":1})"), limits).status().code(),
            ErrorCode::kPayloadTooLarge);
}

// Boost.JSON reads a number beyond a double's range as infinity, which would
// be stored and read back as the string "Infinity": such bodies are refused.
TEST(DecodeJsonBodyTest, NonFiniteNumbersAreRefusedNamingTheField) {
  ServerLimits limits;
  auto top = DecodeJsonBody(Post(R"({"priority":1e400})"), limits);
  EXPECT_EQ(top.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(top.status().field(), "priority");
  auto nested = DecodeJsonBody(Post(R"({"jobs":[{"payload":{"a":[1,-1e999]}}]})"), limits);
  EXPECT_EQ(nested.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(nested.status().field(), "jobs[0].payload.a[1]");
  EXPECT_NE(nested.status().message().find("jobs[0].payload.a[1]"), std::string::npos);
  // Large finite numbers and exponents stay accepted.
  EXPECT_TRUE(
      DecodeJsonBody(Post(R"({"a":1e308,"b":-1.5e-400,"c":[18446744073709551615]})"), limits).ok());
}

TEST(DecodeJsonBodyTest, DeepPayloadsParse) {
  std::string deep = R"({"payload":)" + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_TRUE(DecodeJsonBody(Post(deep), ServerLimits{}).ok());
}

TEST(QueryTest, TypedParameters) {
  QueryParams q{{"limit", "10"},
                {"bad", "1x"},
                {"neg", "-1"},
                {"status", "pending"},
                {"dead_reason", "expired"},
                {"queue_name", ".bad"},
                {"flag", "true"}};
  EXPECT_EQ(*QueryInt(q, "limit", 1, 100).value(), 10);
  EXPECT_EQ(QueryInt(q, "bad", 1, 100).status().field(), "bad");
  EXPECT_EQ(QueryInt(q, "neg", 0, 100).status().field(), "neg");
  EXPECT_FALSE(QueryInt(q, "absent", 0, 1).value().has_value());
  EXPECT_EQ(*QueryStatus(q).value(), JobStatus::kPending);
  EXPECT_EQ(*QueryDeadReason(q).value(), DeadReason::kExpired);
  EXPECT_EQ(QueryQueueName(q).status().field(), "queue_name");
  EXPECT_TRUE(QueryBool(q, "flag", false).value());
  EXPECT_FALSE(QueryBool(q, "absent", false).value());
  EXPECT_EQ(QueryStatus({{"status", "failed"}}).status().code(), ErrorCode::kValidation);
  EXPECT_EQ(QueryDeadReason({{"dead_reason", "x"}}).status().field(), "dead_reason");
  EXPECT_EQ(QueryBool({{"b", "yes"}}, "b", false).status().field(), "b");
}

// --- job bodies

Result<engine::EnqueueParams> Enqueue(std::string_view json, ServerLimits limits = {}) {
  return DecodeEnqueue(boost::json::parse(json).as_object(), limits, {});
}

void ExpectField(std::string_view json, const std::string& field,
                 ErrorCode code = ErrorCode::kValidation) {
  auto r = Enqueue(json);
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_EQ(r.status().code(), code) << json;
  EXPECT_EQ(r.status().field(), field) << json;
}

TEST(DecodeEnqueueTest, FullRequest) {
  auto p = Enqueue(R"({"queue_name":"q","payload":{"a":[1,2]},"priority":-100,
      "max_retries":0,"timeout_seconds":86400,"scheduled_at":"2026-11-29T12:00:00Z",
      "expires_at":"2026-11-30T12:00:00.5+01:00","tags":{"k":"v"},"idempotency_key":"ik",
      "backoff":{"base_ms":0,"max_ms":0,"jitter_ms":60000},"unknown":1})");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->queue_name, "q");
  EXPECT_EQ(p->payload_json, R"({"a":[1,2]})");
  EXPECT_EQ(p->priority, -100);
  EXPECT_EQ(p->max_retries, 0);
  EXPECT_EQ(p->timeout_seconds, 86400);
  EXPECT_TRUE(p->scheduled_at && p->expires_at);
  EXPECT_EQ(p->tags.at("k"), "v");
  EXPECT_EQ(p->idempotency_key, "ik");
  EXPECT_EQ(p->backoff->jitter.count(), 60000);
}

TEST(DecodeEnqueueTest, MinimalRequestLeavesDefaultsToTheEngine) {
  auto p = Enqueue(R"({"queue_name":"q","payload":"text","priority":null})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->payload_json, R"("text")");
  EXPECT_FALSE(p->priority || p->max_retries || p->timeout_seconds || p->backoff);
}

TEST(DecodeEnqueueTest, EveryFieldIsValidated) {
  ExpectField(R"({"payload":{}})", "queue_name");
  ExpectField(R"({"queue_name":"-q","payload":{}})", "queue_name");
  ExpectField(std::string(R"({"queue_name":")") + std::string(101, 'a') + R"(","payload":{}})",
              "queue_name");
  ExpectField(R"({"queue_name":"q"})", "payload");
  ExpectField(R"({"queue_name":"q","payload":null})", "payload");
  ExpectField(R"({"queue_name":"q","payload":{},"priority":101})", "priority");
  ExpectField(R"({"queue_name":"q","payload":{},"priority":1.5})", "priority");
  ExpectField(R"({"queue_name":"q","payload":{},"priority":"1"})", "priority");
  ExpectField(R"({"queue_name":"q","payload":{},"max_retries":101})", "max_retries");
  ExpectField(R"({"queue_name":"q","payload":{},"max_retries":-1})", "max_retries");
  ExpectField(R"({"queue_name":"q","payload":{},"timeout_seconds":0})", "timeout_seconds");
  ExpectField(R"({"queue_name":"q","payload":{},"timeout_seconds":86401})", "timeout_seconds");
  ExpectField(R"({"queue_name":"q","payload":{},"scheduled_at":"soon"})", "scheduled_at");
  ExpectField(R"({"queue_name":"q","payload":{},"expires_at":12})", "expires_at");
  ExpectField(R"({"queue_name":"q","payload":{},"tags":[]})", "tags");
  ExpectField(R"({"queue_name":"q","payload":{},"tags":{"k":1}})", "tags.k");
  ExpectField(R"({"queue_name":"q","payload":{},"tags":{"a=b":"c"}})", "tags.a=b");
  ExpectField(R"({"queue_name":"q","payload":{},"idempotency_key":""})", "idempotency_key");
  ExpectField(std::string(R"({"queue_name":"q","payload":{},"idempotency_key":")") +
                  std::string(256, 'k') + R"("})",
              "idempotency_key");
  ExpectField(R"({"queue_name":"q","payload":{},"backoff":1})", "backoff");
  ExpectField(R"({"queue_name":"q","payload":{},"backoff":{"base_ms":-1}})", "backoff.base_ms");
  ExpectField(R"({"queue_name":"q","payload":{},"backoff":{"max_ms":86400001}})", "backoff.max_ms");
  ExpectField(R"({"queue_name":"q","payload":{},"backoff":{"jitter_ms":60001}})",
              "backoff.jitter_ms");
  ExpectField(R"({"queue_name":"q","payload":{},"backoff":{"base_ms":2000,"max_ms":1000}})",
              "backoff.max_ms");
  // A base above the default max needs an explicit max.
  ExpectField(R"({"queue_name":"q","payload":{},"backoff":{"base_ms":70000}})", "backoff.max_ms");
}

TEST(DecodeEnqueueTest, OversizedPayloadIs413) {
  ServerLimits limits;
  limits.max_payload_bytes = 10;
  auto r = Enqueue(R"({"queue_name":"q","payload":{"abc":"defghijk"}})", limits);
  EXPECT_EQ(r.status().code(), ErrorCode::kPayloadTooLarge);
  EXPECT_EQ(r.status().field(), "payload");
  EXPECT_TRUE(Enqueue(R"({"queue_name":"q","payload":{"a":"b"}})", limits).ok());  // 9 bytes
}

TEST(DecodeAcksTest, CompletionsFailuresAndErrors) {
  auto body = boost::json::parse(R"({"acks":[{"id":"a","lease_id":"l","result":{"ok":1}},
      {"id":"b","lease_id":"l","error":"boom","no_retry":true,"retry_after_ms":5}]})")
                  .as_object();
  auto acks = DecodeAcks(wire::FieldReader(body), ServerLimits{});
  ASSERT_TRUE(acks.ok()) << acks.status().ToString();
  ASSERT_EQ(acks->size(), 2u);
  EXPECT_EQ((*acks)[0].result_json, R"({"ok":1})");
  EXPECT_FALSE((*acks)[0].error);
  EXPECT_EQ((*acks)[1].error, "boom");
  EXPECT_TRUE((*acks)[1].no_retry);
  EXPECT_EQ((*acks)[1].retry_after->count(), 5);
  auto bad = boost::json::parse(R"({"acks":[{"id":"a","lease_id":"l"},{"id":"b"}]})").as_object();
  EXPECT_EQ(DecodeAcks(wire::FieldReader(bad), ServerLimits{}).status().field(),
            "acks[1].lease_id");
  auto both = boost::json::parse(R"({"acks":[{"id":"a","lease_id":"l","result":1,"error":"e"}]})")
                  .as_object();
  EXPECT_EQ(DecodeAcks(wire::FieldReader(both), ServerLimits{}).status().field(), "acks[0].result");
}

}  // namespace
}  // namespace redrive::api
