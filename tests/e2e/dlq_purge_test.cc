// POST /jobs/dlq/purge against the real binary: the same filters as the DLQ
// listing and the redrive (dead_reason, tag), and a dry run that counts
// exactly what the purge would delete and deletes nothing.
#include <gtest/gtest.h>

#include "e2e/support/api_fixture.h"

namespace redrive::e2e {
namespace {

class DlqPurgeTest : public ApiTest {
 protected:
  void SetUp() override {
    ApiTest::SetUp();
    queue_ = NewQueue("payments");
  }

  // A dead job with `tags` in queue_: max_retries_exceeded, or non_retryable
  // when `no_retry`.
  std::string Kill(bool no_retry, json::object tags = {}) {
    json::object extra;
    if (!tags.empty()) extra["tags"] = std::move(tags);
    return MakeDeadJob(queue_, "boom", no_retry, std::move(extra));
  }

  // A purge of queue_ with `filters` (confirm is always sent).
  JsonResponse Purge(json::object filters) {
    filters["confirm"] = true;
    filters["queue_name"] = queue_;
    return Post("/jobs/dlq/purge", filters);
  }

  size_t DeadCount() {
    auto r = Get("/jobs/dlq?limit=100&queue_name=" + queue_);
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return r.status == 200 ? r.body.as_array().size() : 0;
  }

  std::string queue_;
};

TEST_F(DlqPurgeTest, ByDeadReasonDeletesOnlyThatReason) {
  std::vector<std::string> tired, bad;
  for (int i = 0; i < 3; ++i) tired.push_back(Kill(false));
  for (int i = 0; i < 2; ++i) bad.push_back(Kill(true));

  auto dry = Purge({{"dead_reason", "non_retryable"}, {"dry_run", true}});
  ASSERT_EQ(dry.status, 200) << dry.raw.body;
  EXPECT_EQ(dry.body, json::parse(R"({"matched_count":2,"dry_run":true})"));
  EXPECT_EQ(DeadCount(), 5u);

  auto purged = Purge({{"dead_reason", "non_retryable"}});
  ASSERT_EQ(purged.status, 200) << purged.raw.body;
  EXPECT_EQ(purged.body, json::parse(R"({"purged_count":2})"));
  for (const auto& id : bad) EXPECT_EQ(Get("/jobs/" + id).status, 404);
  for (const auto& id : tired) EXPECT_EQ(Job(id).at("status"), "deadletter");
  EXPECT_EQ(Purge({{"dead_reason", "lease_expired"}}).body.at("purged_count"), 0);
  EXPECT_EQ(DeadCount(), 3u);
}

TEST_F(DlqPurgeTest, ByTagDeletesOnlyThatTag) {
  const auto acme1 = Kill(false, {{"tenant", "acme"}});
  const auto acme2 = Kill(true, {{"tenant", "acme"}});
  const auto globex = Kill(false, {{"tenant", "globex"}});
  const auto untagged = Kill(false);

  EXPECT_EQ(Purge({{"tag", "tenant"}, {"dry_run", true}}).body.at("matched_count"), 3);
  EXPECT_EQ(Purge({{"tag", "tenant=acme"}, {"dry_run", true}}).body.at("matched_count"), 2);
  // Both filters at once: acme's non_retryable job only.
  EXPECT_EQ(Purge({{"tag", "tenant=acme"}, {"dead_reason", "non_retryable"}, {"dry_run", true}})
                .body.at("matched_count"),
            1);

  auto purged = Purge({{"tag", "tenant=acme"}});
  ASSERT_EQ(purged.status, 200) << purged.raw.body;
  EXPECT_EQ(purged.body.at("purged_count"), 2);
  EXPECT_EQ(Get("/jobs/" + acme1).status, 404);
  EXPECT_EQ(Get("/jobs/" + acme2).status, 404);
  EXPECT_EQ(Job(globex).at("status"), "deadletter");
  EXPECT_EQ(Job(untagged).at("status"), "deadletter");
}

TEST_F(DlqPurgeTest, DryRunCountsExactlyWithinTheLimitAndDeletesNothing) {
  std::vector<std::string> dead;
  for (int i = 0; i < 4; ++i) dead.push_back(Kill(i % 2 == 0));

  auto all = Purge({{"dry_run", true}});
  ASSERT_EQ(all.status, 200) << all.raw.body;
  EXPECT_EQ(all.body, json::parse(R"({"matched_count":4,"dry_run":true})"));
  EXPECT_EQ(Purge({{"dry_run", true}, {"limit", 3}}).body.at("matched_count"), 3);
  EXPECT_EQ(
      Purge({{"dry_run", true}, {"older_than", "2000-01-01T00:00:00Z"}}).body.at("matched_count"),
      0);
  EXPECT_EQ(DeadCount(), 4u);
  for (const auto& id : dead) EXPECT_EQ(Job(id).at("status"), "deadletter");

  // The dry run's count is what the same purge deletes; dry_run: false is a real purge.
  auto purged = Purge({{"dry_run", false}, {"limit", 3}});
  EXPECT_EQ(purged.body, json::parse(R"({"purged_count":3})"));
  EXPECT_EQ(DeadCount(), 1u);
}

}  // namespace
}  // namespace redrive::e2e
