// "Why are they dead?" against the real binary: GET /jobs/dlq/summary groups
// the DLQ by failure class, and error_prefix lets the listing, the dry run,
// the redrive and the purge act on exactly one class.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "e2e/support/api_fixture.h"

namespace redrive::e2e {
namespace {

std::string Str(const json::value& v) { return std::string(v.as_string()); }

const std::string kTimeout = "gateway timeout";
// 216 characters: the summary shows its first 200.
const std::string kLongTimeout = "gateway timeout: " + std::string(199, 'x');
const std::string kCard = "invalid card 4242";

class DlqSummaryTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    run_ = NewQueue("run");  // a unique tag value: other tests share the server
    payments_ = NewQueue("payments");
    refunds_ = NewQueue("refunds");
  }

  // A dead job tagged with this run.
  std::string Kill(const std::string& queue, const std::string& error, bool no_retry = false) {
    return MakeDeadJob(queue, error, no_retry, {{"tags", {{"run", run_}}}});
  }

  // payments: 3 timeouts, 1 invalid card (non_retryable); refunds: 2 long timeouts.
  void KillTwoClassesInTwoQueues() {
    for (int i = 0; i < 3; ++i) timeouts_.push_back(Kill(payments_, kTimeout));
    card_ = Kill(payments_, kCard, /*no_retry=*/true);
    for (int i = 0; i < 2; ++i) refunds_dead_.push_back(Kill(refunds_, kLongTimeout));
  }

  json::array Summary(const std::string& extra = "") {
    auto r = Get("/jobs/dlq/summary?tag=run%3D" + run_ + extra);
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? r.body.as_array() : json::array{};
  }

  std::string run_, payments_, refunds_, card_;
  std::vector<std::string> timeouts_, refunds_dead_;
};

TEST_F(DlqSummaryTest, GroupsByQueueReasonAndTruncatedErrorLargestFirst) {
  KillTwoClassesInTwoQueues();
  json::array groups = Summary();
  ASSERT_EQ(groups.size(), 3u) << json::serialize(groups);
  EXPECT_EQ(groups[0].at("queue_name"), payments_.c_str());
  EXPECT_EQ(groups[0].at("dead_reason"), "max_retries_exceeded");
  EXPECT_EQ(groups[0].at("error"), kTimeout.c_str());
  EXPECT_EQ(groups[0].at("count"), 3);
  EXPECT_LE(Str(groups[0].at("oldest_deadlettered_at")),
            Str(groups[0].at("newest_deadlettered_at")));
  EXPECT_EQ(groups[1].at("queue_name"), refunds_.c_str());
  EXPECT_EQ(groups[1].at("count"), 2);
  EXPECT_EQ(Str(groups[1].at("error")), kLongTimeout.substr(0, 200));
  EXPECT_EQ(groups[2].at("queue_name"), payments_.c_str());
  EXPECT_EQ(groups[2].at("dead_reason"), "non_retryable");
  EXPECT_EQ(groups[2].at("error"), kCard.c_str());
  EXPECT_EQ(groups[2].at("count"), 1);
  EXPECT_EQ(groups[2].at("oldest_deadlettered_at"), groups[2].at("newest_deadlettered_at"));

  // Filters: queue, reason, limit.
  auto refunds_only = Summary("&queue_name=" + refunds_);
  ASSERT_EQ(refunds_only.size(), 1u);
  EXPECT_EQ(refunds_only[0].at("count"), 2);
  auto cards = Summary("&dead_reason=non_retryable");
  ASSERT_EQ(cards.size(), 1u);
  EXPECT_EQ(cards[0].at("error"), kCard.c_str());
  EXPECT_EQ(Summary("&limit=1").size(), 1u);
  EXPECT_EQ(Summary("&error_prefix=invalid").size(), 1u);
}

TEST_F(DlqSummaryTest, ErrorPrefixTargetsOneClassForListDryRunRetryAndPurge) {
  KillTwoClassesInTwoQueues();
  // The listing: every timeout (both queues), or one queue's.
  auto listed = Get("/jobs/dlq?tag=run%3D" + run_ + "&error_prefix=gateway%20timeout");
  ASSERT_EQ(listed.status, 200) << listed.raw.body;
  EXPECT_EQ(listed.body.as_array().size(), 5u);
  listed = Get("/jobs/dlq?queue_name=" + payments_ + "&error_prefix=gateway%20timeout");
  EXPECT_EQ(listed.body.as_array().size(), 3u);
  // Exact and case-sensitive.
  EXPECT_TRUE(
      Get("/jobs/dlq?queue_name=" + payments_ + "&error_prefix=Gateway").body.as_array().empty());

  json::object timeouts{{"queue_name", payments_}, {"error_prefix", kTimeout}};
  json::object dry = timeouts;
  dry["dry_run"] = true;
  auto dry_run = Post("/jobs/dlq/retry", dry);
  ASSERT_EQ(dry_run.status, 200) << dry_run.raw.body;
  EXPECT_EQ(dry_run.body.at("matched_count"), 3);

  auto retried = Post("/jobs/dlq/retry", timeouts);
  ASSERT_EQ(retried.status, 200) << retried.raw.body;
  EXPECT_EQ(retried.body.at("retried_count"), 3);
  for (const auto& id : timeouts_) EXPECT_EQ(Job(id).at("status"), "pending");
  EXPECT_EQ(Job(card_).at("status"), "deadletter");
  for (const auto& id : refunds_dead_) EXPECT_EQ(Job(id).at("status"), "deadletter");

  json::array left = Summary();
  ASSERT_EQ(left.size(), 2u) << json::serialize(left);
  EXPECT_EQ(left[0].at("queue_name"), refunds_.c_str());
  EXPECT_EQ(left[1].at("error"), kCard.c_str());

  // Purge only the refunds' timeouts: the card stays.
  auto purged =
      Post("/jobs/dlq/purge",
           {{"confirm", true}, {"queue_name", refunds_}, {"error_prefix", "gateway timeout:"}});
  ASSERT_EQ(purged.status, 200) << purged.raw.body;
  EXPECT_EQ(purged.body.at("purged_count"), 2);
  for (const auto& id : refunds_dead_) EXPECT_EQ(Get("/jobs/" + id).status, 404);
  EXPECT_EQ(Job(card_).at("status"), "deadletter");
  left = Summary();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].at("count"), 1);
}

TEST_F(DlqSummaryTest, EmptyDlqIsAnEmptyArray) {
  auto r = Get("/jobs/dlq/summary?queue_name=" + NewQueue("empty"));
  ASSERT_EQ(r.status, 200) << r.raw.body;
  EXPECT_TRUE(r.body.as_array().empty());
}

}  // namespace
}  // namespace redrive::e2e
