// `redrive dlq` against a real server.
#include "cli/support/cli_fixture.h"
#include "core/error_fingerprint.h"

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
  EXPECT_THAT(dry.out, HasSubstr("would retry 2 of 2 matching dead jobs"));
  auto capped = Cli({"dlq", "retry", "--queue", queue, "--dry-run", "--limit", "1"});
  EXPECT_THAT(capped.out, HasSubstr("would retry 1 of 2 matching dead jobs"));
  EXPECT_THAT(capped.out, HasSubstr("1 more match"));
  auto capped_json = Cli({"dlq", "retry", "--queue", queue, "--dry-run", "--limit", "1", "--json"});
  EXPECT_EQ(ParseJson(capped_json.out),
            ParseJson(R"({"matched_count":2,"selected_count":1,"dry_run":true})"));
  EXPECT_EQ(Job(a).at("status"), "deadletter");
  auto one = Cli({"dlq", "retry", "--ids", a, "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(ParseJson(one.out).at("retried_count"), 1);
  EXPECT_EQ(Job(a).at("status"), "pending");
  auto rest = Cli({"dlq", "retry", "--queue", queue, "--rate", "1/s"});
  EXPECT_THAT(rest.out, HasSubstr("retried 1 of 1 matching dead jobs"));
  EXPECT_THAT(rest.out, HasSubstr("throttled: the first is due"));
  EXPECT_EQ(Job(b).at("status"), "pending");
}

// --to-queue: a redrive into another queue, by selection and by id.
TEST_F(CliDlqTest, RetryToAnotherQueue) {
  std::string queue = NewQueue("dlq");
  std::string slow = queue + "-slow";
  std::string a = MakeDeadJob(queue, "boom", kNoRetry);
  std::string b = MakeDeadJob(queue, "boom", kNoRetry);
  auto moved = Cli({"dlq", "retry", "--queue", queue, "--to-queue", slow, "--all"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  for (const std::string& id : {a, b}) {
    auto job = ParseJson(Cli({"jobs", "get", id, "--json"}).out);
    EXPECT_EQ(job.at("queue_name"), slow.c_str()) << id;
    EXPECT_EQ(job.at("status"), "pending") << id;
  }
  std::string c = MakeDeadJob(queue, "boom", kNoRetry);
  auto one = Cli({"jobs", "retry", c, "--to-queue", slow});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_THAT(one.out, HasSubstr("in " + slow));
  auto bad = Cli({"jobs", "retry", c, "--to-queue", "no spaces"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("target_queue"));
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
  EXPECT_THAT(by_reason.out,
              HasSubstr("no dead jobs of queue " + queue + " whose reason is expired"));
  EXPECT_EQ(Cli({"dlq", "summary", "--reason", "tired"}).exit_code, 2);

  auto listed = Cli({"dlq", "list", "--queue", queue, "--error-prefix", "gateway", "--json"});
  EXPECT_EQ(ParseJson(listed.out).as_array().size(), 2u);
  auto dry = Cli({"dlq", "retry", "--queue", queue, "--error-prefix", "gateway", "--dry-run"});
  EXPECT_THAT(dry.out, HasSubstr("would retry 2 of 2 matching dead jobs"));
  auto retried = Cli({"dlq", "retry", "--queue", queue, "--error-prefix", "gateway timeout"});
  ASSERT_EQ(retried.exit_code, 0) << retried.err;
  EXPECT_THAT(retried.out, HasSubstr("retried 2 of 2 matching dead jobs"));
  EXPECT_EQ(Job(t1).at("status"), "pending");
  EXPECT_EQ(Job(t2).at("status"), "pending");
  EXPECT_EQ(Job(card).at("status"), "deadletter");
  auto purged = Cli({"dlq", "purge", "--queue", queue, "--error-prefix", "invalid", "--yes"});
  EXPECT_THAT(purged.out, HasSubstr("purged 1"));
  EXPECT_EQ(Get("/jobs/" + card).status, 404);
}

// One rule for what says which jobs: any filter alone is enough, --reason too.
TEST_F(CliDlqTest, AnyFilterAloneSaysWhichJobs) {
  std::string queue = NewQueue("dlq");
  MakeDeadJob(queue, "boom", kNoRetry);
  auto refused = Cli({"dlq", "retry", "--dry-run"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("--reason R"));
  EXPECT_THAT(refused.err, HasSubstr("--all"));
  for (std::vector<std::string> selection : {std::vector<std::string>{"--reason", "non_retryable"},
                                             {"--tag", "none"},
                                             {"--error-prefix", "boom"},
                                             {"--all"}}) {
    std::vector<std::string> args = {"dlq", "retry", "--dry-run", "--json"};
    args.insert(args.end(), selection.begin(), selection.end());
    auto r = Cli(args);
    EXPECT_EQ(r.exit_code, 0) << selection[0] << ": " << r.err;
  }
  EXPECT_EQ(Cli({"dlq", "retry", "--all", "--limit", "5"}).exit_code, 2);
}

// A selection that matches nothing says so and shows the closest classes,
// with a command that acts on the closest one.
TEST_F(CliDlqTest, ANoMatchShowsTheClosestClasses) {
  std::string queue = NewQueue("dlq");
  MakeDeadJob(queue, "gateway timeout after 30s", kNoRetry);
  MakeDeadJob(queue, "invalid card", kNoRetry);
  for (std::string command : {"retry", "list", "purge"}) {
    std::vector<std::string> args = {"dlq", command,          "--queue",
                                     queue, "--error-prefix", "Gateway timeuot"};
    if (command != "list") args.push_back("--dry-run");
    auto r = Cli(args);
    ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr("no dead jobs of queue " + queue +
                                 " whose error starts with \"Gateway timeuot\""))
        << command;
    EXPECT_THAT(r.out, HasSubstr("closest error classes")) << command;
    EXPECT_LT(r.out.find("gateway timeout after 30s"), r.out.find("invalid card")) << r.out;
    EXPECT_THAT(r.out, HasSubstr("--fingerprint " + ErrorFingerprint("gateway timeout after 30s") +
                                 " --dry-run"));
  }
  auto json = ParseJson(Cli({"dlq", "retry", "--queue", queue, "--error-prefix", "invalid crad",
                             "--dry-run", "--json"})
                            .out);
  EXPECT_EQ(json.at("matched_count"), 0);
  EXPECT_EQ(json.at("closest_classes").as_array()[0].at("error"), "invalid card");
}

// The summary shows each class's fingerprint and normalized message with an
// example; --fingerprint selects that class for list, retry and purge.
TEST_F(CliDlqTest, FingerprintSelectsOneErrorClass) {
  std::string queue = NewQueue("dlq");
  std::string t20 = MakeDeadJob(queue, "upstream 504 after 20s", kNoRetry);
  std::string t30 = MakeDeadJob(queue, "upstream 504 after 30s", kNoRetry);
  std::string other = MakeDeadJob(queue, "upstream 502 after 20s", kNoRetry);
  const std::string fp = ErrorFingerprint("upstream 504 after 20s");
  auto summary = Cli({"dlq", "summary", "--queue", queue});
  ASSERT_EQ(summary.exit_code, 0) << summary.err;
  EXPECT_THAT(summary.out, HasSubstr("FINGERPRINT"));
  EXPECT_THAT(summary.out, HasSubstr(fp));
  EXPECT_THAT(summary.out, HasSubstr("upstream 504 after <n>s"));
  EXPECT_THAT(summary.out, HasSubstr("e.g. upstream 504 after 20s"));
  auto json = ParseJson(Cli({"dlq", "summary", "--queue", queue, "--json"}).out);
  EXPECT_EQ(json.as_array()[0].at("fingerprint").as_string(), fp);
  EXPECT_EQ(json.as_array()[0].at("count"), 2);
  auto dry = Cli({"dlq", "retry", "--fingerprint", fp, "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_THAT(dry.out, HasSubstr("would retry 2 of 2 matching dead jobs"));
  auto retried = Cli({"dlq", "retry", "--queue", queue, "--fingerprint", fp});
  ASSERT_EQ(retried.exit_code, 0) << retried.err;
  EXPECT_EQ(Job(t20).at("status"), "pending");
  EXPECT_EQ(Job(t30).at("status"), "pending");
  EXPECT_EQ(Job(other).at("status"), "deadletter");
  auto purged = Cli({"dlq", "purge", "--queue", queue, "--fingerprint",
                     ErrorFingerprint("upstream 502 after 9s"), "--yes"});
  EXPECT_THAT(purged.out, HasSubstr("purged 1"));
  EXPECT_EQ(Get("/jobs/" + other).status, 404);
  auto bad = Cli({"dlq", "retry", "--fingerprint", "NOT-A-FINGERPRINT", "--dry-run"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("not an error fingerprint"));
}

// --all with a filter runs one bulk operation over every match (more than
// one synchronous request's worth) and follows it to its end.
TEST_F(CliDlqTest, RetryAllRunsAnOperationOverEveryMatch) {
  std::string queue = NewQueue("dlq");
  for (int batch : {1000, 5}) {
    json::array items;
    for (int i = 0; i < batch; ++i)
      items.push_back(json::object{{"payload", json::object{{"i", i}}}});
    auto bulk =
        Post("/jobs/bulk", {{"queue_name", queue}, {"default_max_retries", 0}, {"jobs", items}});
    ASSERT_EQ(bulk.status, 200);
  }
  // Kill them in bulk: claim a hundred at a time and fail each with no_retry.
  int dead = 0;
  while (dead < 1005) {
    json::array jobs = Claim(queue, "w", 100);
    ASSERT_FALSE(jobs.empty());
    json::array acks;
    for (const auto& j : jobs) {
      acks.push_back({{"id", j.at("id")},
                      {"lease_id", j.at("lease_id")},
                      {"error", "boom"},
                      {"no_retry", true}});
    }
    dead += static_cast<int>(acks.size());
    ASSERT_EQ(Post("/jobs/ack", {{"worker_id", "w"}, {"acks", acks}}).status, 200);
  }
  auto dry = Cli({"dlq", "retry", "--queue", queue, "--all", "--dry-run"});
  EXPECT_THAT(dry.out, HasSubstr("would retry 1005 of 1005 matching dead jobs"));
  auto all = Cli({"dlq", "retry", "--queue", queue, "--all", "--budget", "extend:1"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  // Off a terminal: a plain line per change on stderr, then the summary.
  EXPECT_THAT(all.err, HasSubstr("retry of 1,005 matching jobs"));
  EXPECT_THAT(all.err, HasSubstr("completed: retried 1,005 of 1,005"));
  EXPECT_THAT(all.out, HasSubstr("completed: retried 1,005 of 1,005"));
  EXPECT_EQ(Get("/jobs/stats?queue_name=" + queue).body.at("deadletter"), 0);
  auto listed = ParseJson(Cli({"operations", "list", "--json"}).out);
  ASSERT_FALSE(listed.as_array().empty());
  const auto& op = listed.as_array()[0];
  EXPECT_EQ(op.at("action"), "retry");
  EXPECT_EQ(op.at("state"), "completed");
  EXPECT_EQ(op.at("done"), 1005);
  EXPECT_EQ(op.at("budget"), "extend:1");
  const std::string id(op.at("id").as_string());
  auto show = Cli({"operations", "show", id});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(show.out, HasSubstr("completed: retried 1,005 of 1,005"));
  auto cancel = Cli({"operations", "cancel", id});
  EXPECT_EQ(cancel.exit_code, 1);
  EXPECT_THAT(cancel.err, HasSubstr("already finished"));
}

// `dlq summary` shows each class whole, wrapped: every line is a piece of
// the error, and the whole text selects the class.
TEST_F(CliDlqTest, SummaryWrapsLongErrorsInsteadOfCuttingThem) {
  std::string queue = NewQueue("dlq");
  const std::string error =
      "upstream payment gateway returned 503 Service Unavailable while confirming the "
      "authorization of card ending 4242; retry budget exhausted";
  MakeDeadJob(queue, error, kNoRetry);
  auto table = Cli({"dlq", "summary", "--queue", queue});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.find("\u2026"), std::string::npos) << table.out;
  EXPECT_THAT(table.out, HasSubstr("upstream payment gateway returned 503 Service Unavailable"));
  EXPECT_THAT(table.out, HasSubstr("retry budget exhausted"));
  auto dry = Cli({"dlq", "retry", "--queue", queue, "--error-prefix", error, "--dry-run"});
  EXPECT_THAT(dry.out, HasSubstr("would retry 1 of 1"));
}

// Pausing (and resuming) a queue before its first job works, as config does.
TEST_F(CliDlqTest, QueuesPauseAndResumeBeforeTheFirstJob) {
  std::string queue = NewQueue("fresh");
  auto paused = Cli({"queues", "pause", queue, "--reason", "not yet"});
  ASSERT_EQ(paused.exit_code, 0) << paused.err;
  EXPECT_THAT(paused.out, HasSubstr("paused " + queue));
  EXPECT_EQ(Get("/queues/" + queue).body.at("paused"), true);
  std::string other = NewQueue("fresh");
  auto resumed = Cli({"queues", "resume", other});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
}

}  // namespace
}  // namespace redrive::e2e
