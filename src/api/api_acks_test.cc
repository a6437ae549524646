// A failure ack against POST /jobs/{id}/fail: the same answer for the same
// situation, and the same `details` (stored alike, refused alike).
#include <boost/json/serialize.hpp>

#include "api/api_test_util.h"
#include "wire/time_json.h"

namespace redrive::api::testing {
namespace {

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

// `id` and `lease` as the fields of an ack or a fail body, and `failure`'s.
std::string AckItem(const std::string& id, const std::string& lease, const std::string& failure) {
  return R"({"id":)" + Quoted(id) + R"(,"lease_id":)" + Quoted(lease) + "," + failure + "}";
}

class ApiAckTest : public ApiTest {
 protected:
  // Three jobs of a new queue enqueued with `settings`, claimed: id → lease.
  std::vector<std::pair<std::string, std::string>> ThreeHeld(const std::string& queue,
                                                             const std::string& settings) {
    for (int i = 0; i < 3; ++i) Enqueue(queue, settings);
    Reply claim = Post("/api/v1/jobs/claim",
                       R"({"queue_name":)" + Quoted(queue) + R"(,"worker_id":"w1","limit":3})");
    std::vector<std::pair<std::string, std::string>> held;
    for (const auto& j : claim["jobs"].as_array()) {
      held.emplace_back(Str(j.at("id")), Str(j.at("lease_id")));
    }
    EXPECT_EQ(held.size(), 3u) << claim.raw.body;
    return held;
  }
};

// One job failed by the fail route, one by POST /jobs/ack, one by a claim's
// acks, at the same instant: the ack results are the fail answer plus `id`.
TEST_F(ApiAckTest, AFailureAckAnswersWhatTheFailRouteAnswers) {
  struct Case {
    const char* name;
    std::string settings;  // of the jobs, as POST /jobs fields
    std::string failure;   // the fail body's fields beyond worker_id and lease_id
    boost::json::object expected;
  };
  const std::vector<Case> cases = {
      {"retry scheduled",
       R"(,"max_retries":2,"backoff":{"base_ms":1000,"jitter_ms":0})",
       R"("error":"upstream 503")",
       {{"success", true},
        {"will_retry", true},
        {"status", "scheduled"},
        {"retry_count", 1},
        {"scheduled_at", wire::TimeToJson(clock_.Now() + std::chrono::seconds(1))}}},
      {"dead by max retries",
       R"(,"max_retries":0)",
       R"("error":"upstream 503")",
       {{"success", true},
        {"will_retry", false},
        {"status", "deadletter"},
        {"retry_count", 0},
        {"dead_reason", "max_retries_exceeded"}}},
      {"dead by no_retry",
       R"(,"max_retries":5)",
       R"("error":"bad input","no_retry":true,"details":{"exit_code":2})",
       {{"success", true},
        {"will_retry", false},
        {"status", "deadletter"},
        {"retry_count", 0},
        {"dead_reason", "non_retryable"}}},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto held = ThreeHeld("fq" + std::to_string(n++), c.settings);
    ASSERT_EQ(held.size(), 3u);
    const auto& [by_fail, fail_lease] = held[0];
    const auto& [by_ack, ack_lease] = held[1];
    const auto& [by_claim, claim_lease] = held[2];

    Reply fail =
        Post("/api/v1/jobs/" + by_fail + "/fail",
             R"({"worker_id":"w1","lease_id":)" + Quoted(fail_lease) + "," + c.failure + "}");
    ASSERT_EQ(fail.status, 200) << fail.raw.body;
    Reply ack = Post("/api/v1/jobs/ack", R"({"worker_id":"w1","acks":[)" +
                                             AckItem(by_ack, ack_lease, c.failure) + "]}");
    ASSERT_EQ(ack.status, 200) << ack.raw.body;
    Reply claim =
        Post("/api/v1/jobs/claim", R"({"queue_name":"nothing-here","worker_id":"w1","acks":[)" +
                                       AckItem(by_claim, claim_lease, c.failure) + "]}");
    ASSERT_EQ(claim.status, 200) << claim.raw.body;

    EXPECT_EQ(fail.json.as_object(), c.expected) << fail.raw.body;
    for (const Reply* r : {&ack, &claim}) {
      boost::json::object item = r->json.at("results").at(0).as_object();
      EXPECT_EQ(Str(item.at("id")), r == &ack ? by_ack : by_claim);
      item.erase("id");
      EXPECT_EQ(item, fail.json.as_object()) << r->raw.body;
    }
  }
}

TEST_F(ApiAckTest, AFailureAcksDetailsAreKeptInTheHistoryAsTheFailRoutesAre) {
  // No jitter: the three retries are due at the same instant.
  const auto held = ThreeHeld("dq", R"(,"backoff":{"base_ms":1000,"jitter_ms":0})");
  ASSERT_EQ(held.size(), 3u);
  const std::string failure =
      R"("error":"gateway timeout","details":{"exit_code":1,"signal":null})";
  ASSERT_EQ(Post("/api/v1/jobs/" + held[0].first + "/fail",
                 R"({"worker_id":"w1","lease_id":)" + Quoted(held[0].second) + "," + failure + "}")
                .status,
            200);
  Reply ack = Post("/api/v1/jobs/ack", R"({"worker_id":"w1","acks":[)" +
                                           AckItem(held[1].first, held[1].second, failure) + "]}");
  ASSERT_EQ(ack.status, 200) << ack.raw.body;
  Reply claim =
      Post("/api/v1/jobs/claim", R"({"queue_name":"nothing-here","worker_id":"w1",)"
                                 R"("acks":[)" +
                                     AckItem(held[2].first, held[2].second, failure) + "]}");
  ASSERT_EQ(claim.status, 200) << claim.raw.body;

  auto failed_entry = [&](const std::string& id) {
    Reply history = Get("/api/v1/jobs/" + id + "/history");
    return history.json.as_array().back().at("details").as_object();
  };
  const boost::json::object by_fail = failed_entry(held[0].first);
  EXPECT_EQ(by_fail.at("attempt").at("exit_code"), 1);
  EXPECT_TRUE(by_fail.at("attempt").at("signal").is_null());
  EXPECT_EQ(failed_entry(held[1].first), by_fail) << boost::json::serialize(by_fail);
  EXPECT_EQ(failed_entry(held[2].first), by_fail) << boost::json::serialize(by_fail);
  EXPECT_EQ(Get("/api/v1/jobs/" + held[1].first)["last_error"], "gateway timeout");
}

// Bad details fail the whole request, as a bad fail body does, naming the
// ack's field, and apply none of its acks.
TEST_F(ApiAckTest, BadDetailsInAnAckAreRefusedNamingTheField) {
  std::string id = Enqueue();
  std::string lease = Str(ClaimOne().at("lease_id"));
  const std::string good = AckItem(id, lease, R"("error":"e")");
  const std::string big(1100, 'x');
  struct Case {
    std::string bad_item;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {AckItem("x", "l", R"("error":"e","details":[1])"), "object"},
      {AckItem("x", "l", R"("error":"e","details":"exit 1")"), "object"},
      {AckItem("x", "l", R"("error":"e","details":{"note":")" + big + R"("})"), "1024 bytes"},
      {AckItem("x", "l", R"("result":{"ok":true},"details":{"exit_code":0})"), "needs error"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.bad_item.substr(0, 80));
    for (const std::string& route : {std::string("ack"), std::string("claim")}) {
      const std::string body =
          route == "ack"
              ? R"({"worker_id":"w1","acks":[)" + good + "," + c.bad_item + "]}"
              : R"({"queue_name":"q","worker_id":"w1","acks":[)" + good + "," + c.bad_item + "]}";
      Reply r = Post("/api/v1/jobs/" + route, body);
      EXPECT_EQ(r.status, 400) << r.raw.body;
      EXPECT_EQ(r.Code(), "VALIDATION_ERROR");
      EXPECT_EQ(r.Field(), "acks[1].details");
      EXPECT_NE(Str(r["message"]).find(c.message_part), std::string::npos) << r.raw.body;
    }
  }
  EXPECT_EQ(Get("/api/v1/jobs/" + id)["status"], "processing");  // the good ack was not applied
  // null details are no details, as on the fail route.
  Reply ok =
      Post("/api/v1/jobs/ack", R"({"worker_id":"w1","acks":[)" +
                                   AckItem(id, lease, R"("error":"e","details":null)") + "]}");
  ASSERT_EQ(ok.status, 200) << ok.raw.body;
  EXPECT_EQ(ok["results"].as_array()[0].at("success"), true);
}

}  // namespace
}  // namespace redrive::api::testing
