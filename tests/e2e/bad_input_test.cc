// Every bad input gets a clear 4xx JSON error, and nothing a client sends —
// garbage, oversize bodies, half a request — harms the server or others.
#include <gtest/gtest.h>

#include <thread>

#include "e2e/support/api_fixture.h"

namespace redrive::e2e {
namespace {

class BadInputTest : public ApiTest {
 protected:
  // Expects `r` to be a contract error with `status` and `code`.
  static void ExpectError(const JsonResponse& r, int status, const std::string& code,
                          const std::string& field = "") {
    EXPECT_EQ(r.status, status) << r.raw.body;
    ASSERT_TRUE(r.body.is_object()) << r.raw.body;
    EXPECT_EQ(r.body.at("code"), code.c_str()) << r.raw.body;
    EXPECT_TRUE(r.body.at("message").is_string());
    EXPECT_FALSE(r.body.at("message").as_string().empty());
    if (!field.empty()) {
      EXPECT_EQ(r.body.at("details").at("field"), field.c_str()) << r.raw.body;
    }
    const std::string* ct = r.raw.header("content-type");
    ASSERT_NE(ct, nullptr);
    EXPECT_NE(ct->find("application/json"), std::string::npos);
  }
  JsonResponse Raw(const std::string& method, const std::string& path, const std::string& body,
                   const Headers& headers = {{"Content-Type", "application/json"}}) {
    HttpResponse r = client_->Request(method, "/api/v1" + path, body, headers);
    JsonResponse j;
    j.status = r.status;
    j.raw = r;
    boost::system::error_code ec;
    j.body = json::parse(r.body, ec);
    return j;
  }
};

TEST_F(BadInputTest, MalformedJsonIsBadRequest) {
  ExpectError(Raw("POST", "/jobs", "{\"queue_name\": \"q\", "), 400, "BAD_REQUEST");
  ExpectError(Raw("POST", "/jobs", "[1,2]"), 400, "BAD_REQUEST");
}

TEST_F(BadInputTest, WrongTypesAndRangesNameTheField) {
  ExpectError(Post("/jobs", {{"payload", 1}}), 400, "VALIDATION_ERROR", "queue_name");
  ExpectError(Post("/jobs", {{"queue_name", "q"}}), 400, "VALIDATION_ERROR", "payload");
  ExpectError(Post("/jobs", {{"queue_name", 5}, {"payload", 1}}), 400, "VALIDATION_ERROR",
              "queue_name");
  ExpectError(Post("/jobs", {{"queue_name", ".hidden"}, {"payload", 1}}), 400, "VALIDATION_ERROR",
              "queue_name");
  ExpectError(Post("/jobs", {{"queue_name", "q"}, {"payload", 1}, {"priority", 101}}), 400,
              "VALIDATION_ERROR", "priority");
  ExpectError(Post("/jobs", {{"queue_name", "q"}, {"payload", 1}, {"priority", "high"}}), 400,
              "VALIDATION_ERROR", "priority");
  ExpectError(Post("/jobs", {{"queue_name", "q"}, {"payload", 1}, {"max_retries", 1.5}}), 400,
              "VALIDATION_ERROR", "max_retries");
  ExpectError(Post("/jobs", {{"queue_name", "q"}, {"payload", 1}, {"timeout_seconds", 0}}), 400,
              "VALIDATION_ERROR", "timeout_seconds");
  ExpectError(Post("/jobs", {{"queue_name", "q"}, {"payload", 1}, {"scheduled_at", "tomorrow"}}),
              400, "VALIDATION_ERROR", "scheduled_at");
  ExpectError(Post("/jobs", {{"queue_name", "q"},
                             {"payload", 1},
                             {"backoff", {{"base_ms", 2000}, {"max_ms", 1000}, {"jitter_ms", 0}}}}),
              400, "VALIDATION_ERROR");
  ExpectError(
      Post("/jobs",
           {{"queue_name", "q"}, {"payload", 1}, {"idempotency_key", std::string(256, 'k')}}),
      400, "VALIDATION_ERROR", "idempotency_key");
  ExpectError(Post("/jobs/claim", {{"queue_name", "q"}, {"worker_id", "w"}, {"limit", 101}}), 400,
              "VALIDATION_ERROR", "limit");
  ExpectError(
      Post("/jobs/claim", {{"queue_name", "q"}, {"worker_id", "w"}, {"lease_duration_secs", 4}}),
      400, "VALIDATION_ERROR", "lease_duration_secs");
  ExpectError(Post("/jobs/claim", {{"queue_name", "q"}, {"worker_id", "w"}, {"wait_ms", 30001}}),
              400, "VALIDATION_ERROR", "wait_ms");
  ExpectError(Get("/jobs?status=exploded"), 400, "VALIDATION_ERROR", "status");
  // An out-of-range list limit is clamped (Spooled's rule); one that is not a
  // non-negative whole number is refused.
  ExpectError(Get("/jobs?limit=-1"), 400, "VALIDATION_ERROR", "limit");
}

TEST_F(BadInputTest, DlqSummaryAndErrorPrefixAreValidated) {
  ExpectError(Get("/jobs/dlq/summary?limit=-1"), 400, "VALIDATION_ERROR", "limit");
  ExpectError(Get("/jobs/dlq/summary?limit=2e2"), 400, "VALIDATION_ERROR", "limit");
  ExpectError(Get("/jobs/dlq/summary?limit=ten"), 400, "VALIDATION_ERROR", "limit");
  ExpectError(Get("/jobs/dlq/summary?dead_reason=tired"), 400, "VALIDATION_ERROR", "dead_reason");
  ExpectError(Get("/jobs/dlq/summary?queue_name=.hidden"), 400, "VALIDATION_ERROR", "queue_name");
  const std::string too_long(2049, 'e');
  ExpectError(Get("/jobs/dlq/summary?error_prefix=" + too_long), 400, "VALIDATION_ERROR",
              "error_prefix");
  ExpectError(Get("/jobs/dlq?error_prefix=" + too_long), 400, "VALIDATION_ERROR", "error_prefix");
  EXPECT_EQ(Get("/jobs/dlq?error_prefix=" + std::string(2048, 'e')).status, 200);
  ExpectError(Post("/jobs/dlq/retry", {{"error_prefix", 5}, {"dry_run", true}}), 400,
              "VALIDATION_ERROR", "error_prefix");
  ExpectError(Post("/jobs/dlq/retry", {{"error_prefix", ""}, {"dry_run", true}}), 400,
              "VALIDATION_ERROR", "error_prefix");
  ExpectError(Post("/jobs/dlq/retry", {{"error_prefix", too_long}, {"dry_run", true}}), 400,
              "VALIDATION_ERROR", "error_prefix");
  ExpectError(Post("/jobs/dlq/purge", {{"confirm", true}, {"error_prefix", json::array{"x"}}}), 400,
              "VALIDATION_ERROR", "error_prefix");
  // The purge's own filters and dry run: wrong types name the field; nothing is deleted.
  ExpectError(Post("/jobs/dlq/purge", {{"confirm", true}, {"dry_run", "yes"}}), 400,
              "VALIDATION_ERROR", "dry_run");
  ExpectError(Post("/jobs/dlq/purge", {{"confirm", true}, {"dead_reason", "nope"}}), 400,
              "VALIDATION_ERROR", "dead_reason");
  ExpectError(Post("/jobs/dlq/purge", {{"confirm", true}, {"dead_reason", 3}}), 400,
              "VALIDATION_ERROR", "dead_reason");
  ExpectError(Post("/jobs/dlq/purge", {{"confirm", true}, {"tag", 5}}), 400, "VALIDATION_ERROR",
              "tag");
  ExpectError(Post("/jobs/dlq/purge", {{"confirm", true}, {"tag", ""}}), 400, "VALIDATION_ERROR",
              "tag");
  // A dry run is still a purge request: it carries confirm like every other.
  ExpectError(Post("/jobs/dlq/purge", {{"dry_run", true}}), 400, "BAD_REQUEST", "confirm");
  // The summary is not a job id: no 404 "job not found", and it is read-only.
  EXPECT_EQ(Delete("/jobs/dlq/summary").status, 405);
}

TEST_F(BadInputTest, UnknownThingsAreNotFoundAndWrongMethodIs405) {
  ExpectError(Get("/jobs/0190a6b8-0000-7000-8000-000000000000"), 404, "NOT_FOUND");
  ExpectError(Get("/no/such/route"), 404, "NOT_FOUND");
  ExpectError(Get("/queues/never-seen"), 404, "NOT_FOUND");
  ExpectError(Delete("/jobs/claim"), 405, "METHOD_NOT_ALLOWED");
}

TEST_F(BadInputTest, StaleOrForeignLeaseIsLeaseExpired) {
  const auto q = NewQueue();
  const auto id = Enqueue(q);
  auto jobs = Claim(q, "w");
  ASSERT_EQ(jobs.size(), 1u);
  ExpectError(Post("/jobs/" + id + "/complete",
                   {{"worker_id", "w"}, {"lease_id", "0190a6b8-0000-7000-8000-000000000000"}}),
              409, "LEASE_EXPIRED");
  ExpectError(
      Post("/jobs/" + id + "/fail",
           {{"worker_id", "intruder"}, {"lease_id", jobs[0].at("lease_id")}, {"error", "x"}}),
      409, "LEASE_EXPIRED");
  // Without a lease_id (Spooled's SDK), worker_id alone must name the holder.
  ExpectError(Post("/jobs/" + id + "/complete", {{"worker_id", "intruder"}}), 409, "LEASE_EXPIRED");
  EXPECT_EQ(Job(id).at("status"), "processing");
}

TEST_F(BadInputTest, WrongContentTypeIs415) {
  ExpectError(
      Raw("POST", "/jobs", R"({"queue_name":"q","payload":1})", {{"Content-Type", "text/plain"}}),
      415, "UNSUPPORTED_MEDIA_TYPE");
}

TEST_F(BadInputTest, OversizedPayloadIs413) {
  const std::string big(1100 * 1024, 'x');
  ExpectError(Post("/jobs", {{"queue_name", "q"}, {"payload", big}}), 413, "PAYLOAD_TOO_LARGE");
}

TEST_F(BadInputTest, BodyOverTheLimitIs413) {
  const std::string body =
      "{\"queue_name\":\"q\",\"payload\":\"" + std::string(17 << 20, 'y') + "\"}";
  auto r = Raw("POST", "/jobs", body);
  EXPECT_EQ(r.status, 413) << r.raw.error;
  // The server is fine afterwards.
  client_->Disconnect();
  EXPECT_EQ(client_->Get("/health").status, 200);
}

TEST_F(BadInputTest, ErrorIsTruncatedNotRejected) {
  const auto q = NewQueue();
  const auto id = Enqueue(q, {{"max_retries", 0}});
  auto jobs = Claim(q, "w");
  auto r = Post("/jobs/" + id + "/fail", {{"worker_id", "w"},
                                          {"lease_id", jobs[0].at("lease_id")},
                                          {"error", std::string(5000, 'e')}});
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_EQ(Job(id).at("last_error").as_string().size(), 2048u);
}

TEST_F(BadInputTest, GarbageAndHalfRequestsHarmNoOne) {
  std::string reply = client_->RawExchange("\x16\x03\x01 this is not http\r\n\r\n");
  EXPECT_NE(reply.find("400"), std::string::npos) << reply;
  // A client that sends half a request and vanishes.
  {
    auto c = client_->Connect();
    ASSERT_TRUE(c->connected());
    c->Send(
        "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
        "application/json\r\nContent-Length: 100\r\n\r\n{\"queue");
  }
  // Another one still connected, idle mid-request, while others are served.
  auto idle = client_->Connect();
  idle->Send("GET /api/v1/jobs HTT");
  const auto q = NewQueue();
  EXPECT_FALSE(Enqueue(q).empty());
  EXPECT_EQ(client_->Get("/health").status, 200);
}

// Each answer closes the connection (Connection: close or a refused head),
// so RawExchange reads all of it.
TEST_F(BadInputTest, StrictHttpFraming) {
  std::string reply = client_->RawExchange(
      "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: gzip\r\n\r\n{}");
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 400")) << reply;
  EXPECT_NE(reply.find(R"("code":"BAD_REQUEST")"), std::string::npos) << reply;

  reply = client_->RawExchange("GET /health HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 400")) << reply;
  reply = client_->RawExchange("GET /health HTTP/1.0\r\n\r\n");
  EXPECT_TRUE(reply.starts_with("HTTP/1.0 200")) << reply;

  reply =
      client_->RawExchange("HEAD /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(reply.starts_with("HTTP/1.1 200")) << reply;
  EXPECT_TRUE(reply.ends_with("\r\n\r\n")) << reply;  // headers only
  EXPECT_NE(reply.find("Content-Length: "), std::string::npos) << reply;
  EXPECT_EQ(reply.find("Content-Length: 0"), std::string::npos) << reply;
}

}  // namespace
}  // namespace redrive::e2e
