// `redrive dlq` against a real server.
#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;

// The dead jobs here are non_retryable unless a test says otherwise.
constexpr bool kNoRetry = true;

class CliDlqTest : public CliTest {};

TEST_F(CliDlqTest, ListShowAndFilters) {
  std::string queue = NewQueue("dlq");
  std::string id = MakeDeadJob(queue, "smtp 550 mailbox unavailable", kNoRetry);
  auto list = Cli({"dlq", "list", "--queue", queue});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(id));
  EXPECT_THAT(list.out, HasSubstr("non_retryable"));
  EXPECT_THAT(list.out, HasSubstr("smtp 550"));
  auto none = Cli({"dlq", "list", "--queue", queue, "--reason", "expired", "--json"});
  EXPECT_EQ(ParseJson(none.out).as_array().size(), 0u);
  auto show = Cli({"dlq", "show", id});
  EXPECT_THAT(show.out, HasSubstr("Dead reason:"));
  EXPECT_THAT(show.out, HasSubstr("deadlettered"));
  auto show_json = Cli({"dlq", "show", id, "--json"});
  EXPECT_EQ(ParseJson(show_json.out).at("job").at("dead_reason"), "non_retryable");
}

TEST_F(CliDlqTest, RetryNeedsASelectionAndHonoursDryRunAndIds) {
  std::string queue = NewQueue("dlq");
  std::string a = MakeDeadJob(queue, "boom", kNoRetry);
  std::string b = MakeDeadJob(queue, "boom", kNoRetry);
  EXPECT_EQ(Cli({"dlq", "retry"}).exit_code, 2);
  EXPECT_EQ(Cli({"dlq", "retry", "--queue", queue, "--rate", "fast"}).exit_code, 2);
  auto dry = Cli({"dlq", "retry", "--queue", queue, "--dry-run"});
  EXPECT_THAT(dry.out, HasSubstr("would retry 2 jobs"));
  EXPECT_EQ(Job(a).at("status"), "deadletter");
  auto one = Cli({"dlq", "retry", "--ids", a, "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(ParseJson(one.out).at("retried_count"), 1);
  EXPECT_EQ(Job(a).at("status"), "pending");
  auto rest = Cli({"dlq", "retry", "--queue", queue, "--rate", "1/s"});
  EXPECT_THAT(rest.out, HasSubstr("retried 1 jobs"));
  EXPECT_EQ(Job(b).at("status"), "pending");
}

TEST_F(CliDlqTest, PurgeNeedsYesWithoutATerminal) {
  std::string queue = NewQueue("dlq");
  std::string id = MakeDeadJob(queue, "boom", kNoRetry);
  auto refused = Cli({"dlq", "purge", "--queue", queue});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--yes"));
  EXPECT_EQ(Job(id).at("status"), "deadletter");
  auto young = Cli({"dlq", "purge", "--queue", queue, "--older-than", "7d", "--yes"});
  EXPECT_THAT(young.out, HasSubstr("purged 0"));
  auto purge = Cli({"dlq", "purge", "--queue", queue, "--yes", "--json"});
  ASSERT_EQ(purge.exit_code, 0) << purge.err;
  EXPECT_EQ(ParseJson(purge.out).at("purged_count"), 1);
  EXPECT_EQ(Get("/jobs/" + id).status, 404);
}

TEST_F(CliDlqTest, PurgeDryRunReasonAndTag) {
  std::string queue = NewQueue("dlq");
  std::string bad1 = MakeDeadJob(queue, "boom", kNoRetry);
  std::string bad2 = MakeDeadJob(queue, "boom", kNoRetry);
  // One that ran out of retries, tagged.
  std::string tired =
      MakeDeadJob(queue, "timeout", /*no_retry=*/false, {{"tags", {{"kind", "tired"}}}});

  // A dry run needs no --yes and no terminal, and deletes nothing.
  auto dry = Cli({"dlq", "purge", "--queue", queue, "--reason", "non_retryable", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("would purge 2 dead jobs"));
  auto dry_json = Cli({"dlq", "purge", "--queue", queue, "--dry-run", "--json"});
  ASSERT_EQ(dry_json.exit_code, 0) << dry_json.err;
  EXPECT_EQ(ParseJson(dry_json.out), ParseJson(R"({"matched_count":3,"dry_run":true})"));
  auto by_tag = Cli({"dlq", "purge", "--queue", queue, "--tag", "kind=tired", "--dry-run"});
  EXPECT_THAT(by_tag.out, HasSubstr("would purge 1 dead jobs"));
  EXPECT_EQ(Job(bad1).at("status"), "deadletter");
  EXPECT_EQ(Cli({"dlq", "purge", "--queue", queue, "--reason", "tired", "--dry-run"}).exit_code, 2);
  // A real purge without --yes still refuses off a terminal.
  EXPECT_EQ(Cli({"dlq", "purge", "--queue", queue, "--reason", "non_retryable"}).exit_code, 2);

  auto purged = Cli({"dlq", "purge", "--queue", queue, "--reason", "non_retryable", "--yes"});
  ASSERT_EQ(purged.exit_code, 0) << purged.err;
  EXPECT_THAT(purged.out, HasSubstr("purged 2 dead jobs"));
  EXPECT_EQ(Get("/jobs/" + bad1).status, 404);
  EXPECT_EQ(Get("/jobs/" + bad2).status, 404);
  EXPECT_EQ(Job(tired).at("status"), "deadletter");
  auto tagged = Cli({"dlq", "purge", "--queue", queue, "--tag", "kind=tired", "--yes", "--json"});
  EXPECT_EQ(ParseJson(tagged.out).at("purged_count"), 1);
  EXPECT_EQ(Get("/jobs/" + tired).status, 404);
}

TEST_F(CliDlqTest, SummaryGroupsAndErrorPrefixActsOnOneClass) {
  std::string queue = NewQueue("dlq");
  std::string t1 = MakeDeadJob(queue, "gateway timeout", kNoRetry),
              t2 = MakeDeadJob(queue, "gateway timeout", kNoRetry);
  std::string card = MakeDeadJob(queue, "invalid card", kNoRetry);
  auto table = Cli({"dlq", "summary", "--queue", queue});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("COUNT"));
  EXPECT_THAT(table.out, HasSubstr("OLDEST"));
  // The largest class first.
  EXPECT_LT(table.out.find("gateway timeout"), table.out.find("invalid card")) << table.out;
  auto json = ParseJson(Cli({"dlq", "summary", "--queue", queue, "--json"}).out).as_array();
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0].at("count"), 2);
  EXPECT_EQ(json[0].at("error"), "gateway timeout");
  EXPECT_EQ(json[1].at("count"), 1);
  auto by_reason = Cli({"dlq", "summary", "--queue", queue, "--reason", "expired"});
  EXPECT_THAT(by_reason.out, HasSubstr("the DLQ is empty"));
  EXPECT_EQ(Cli({"dlq", "summary", "--reason", "tired"}).exit_code, 2);

  auto listed = Cli({"dlq", "list", "--queue", queue, "--error-prefix", "gateway", "--json"});
  EXPECT_EQ(ParseJson(listed.out).as_array().size(), 2u);
  auto dry = Cli({"dlq", "retry", "--queue", queue, "--error-prefix", "gateway", "--dry-run"});
  EXPECT_THAT(dry.out, HasSubstr("would retry 2 jobs"));
  auto retried = Cli({"dlq", "retry", "--queue", queue, "--error-prefix", "gateway timeout"});
  ASSERT_EQ(retried.exit_code, 0) << retried.err;
  EXPECT_THAT(retried.out, HasSubstr("retried 2 jobs"));
  EXPECT_EQ(Job(t1).at("status"), "pending");
  EXPECT_EQ(Job(t2).at("status"), "pending");
  EXPECT_EQ(Job(card).at("status"), "deadletter");
  auto purged = Cli({"dlq", "purge", "--queue", queue, "--error-prefix", "invalid", "--yes"});
  EXPECT_THAT(purged.out, HasSubstr("purged 1"));
  EXPECT_EQ(Get("/jobs/" + card).status, 404);
}

}  // namespace
}  // namespace redrive::e2e
