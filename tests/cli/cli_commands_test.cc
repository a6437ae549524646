// The client commands against a real server: output, --json and exit codes.
#include <fstream>

#include "cli/support/cli_fixture.h"

namespace redrive::e2e {
namespace {

using ::testing::HasSubstr;

class CliCommandsTest : public CliTest {};

TEST_F(CliCommandsTest, VersionHelpAndUsageErrors) {
  auto version = RunRedrive({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.out, HasSubstr("redrive " REDRIVE_VERSION));
  auto help = RunRedrive({"dlq", "retry", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("Examples:"));
  EXPECT_EQ(Cli({"jobs"}).exit_code, 2);                                   // no subcommand
  EXPECT_EQ(Cli({"enqueue", "q", "{}", "--delay", "soon"}).exit_code, 2);  // bad duration
  auto bad_json = Cli({"enqueue", "q", "{nope"});
  EXPECT_EQ(bad_json.exit_code, 2);
  EXPECT_THAT(bad_json.err, HasSubstr("not JSON"));
}

TEST_F(CliCommandsTest, UnknownCommandsAreNamedWithTheClosestOne) {
  auto foo = Cli({"foo"});
  EXPECT_EQ(foo.exit_code, 2);
  EXPECT_THAT(foo.err, HasSubstr("unknown command 'foo' (commands: "));
  auto lst = Cli({"jobs", "lst"});
  EXPECT_EQ(lst.exit_code, 2);
  EXPECT_THAT(lst.err, HasSubstr("unknown command 'jobs lst'; did you mean 'jobs list'?"));
  EXPECT_THAT(Cli({"jobs"}).err, HasSubstr("subcommand is required"));  // CLI11's, still right
}

TEST_F(CliCommandsTest, HelpAndCompletion) {
  auto help = RunRedrive({"help"});
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_THAT(help.out, HasSubstr("Exit codes:"));
  EXPECT_THAT(help.out, HasSubstr("enqueue"));
  auto sub = RunRedrive({"help", "jobs", "list"});
  EXPECT_EQ(sub.exit_code, 0) << sub.err;
  EXPECT_THAT(sub.out, HasSubstr("--status"));
  EXPECT_EQ(RunRedrive({"help", "jobs", "lst"}).exit_code, 2);
  auto bash = RunRedrive({"completion", "bash"});
  EXPECT_EQ(bash.exit_code, 0);
  EXPECT_THAT(bash.out, HasSubstr("complete -o default -F _redrive redrive"));
  EXPECT_THAT(RunRedrive({"completion", "zsh"}).out, HasSubstr("#compdef redrive"));
  EXPECT_EQ(RunRedrive({"completion", "fish"}).exit_code, 2);
}

TEST_F(CliCommandsTest, JobsListSaysWhenItStopsEarlyAndPagesOnRequest) {
  std::string queue = NewQueue("many");
  json::array jobs;
  for (int i = 0; i < 119; ++i) jobs.push_back(json::object{{"payload", json::object{{"n", i}}}});
  auto bulk = Post("/jobs/bulk", {{"queue_name", queue}, {"jobs", jobs}});
  ASSERT_EQ(bulk.status, 200) << bulk.raw.body;
  Enqueue(queue, {{"tags", {{"tenant", "acme"}}}});
  Enqueue(queue, {{"tags", {{"tenant", "acme"}}}});  // 121 jobs

  auto first = Cli({"jobs", "list", "--queue", queue, "--json"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(ParseJson(first.out).as_array().size(), 50u);
  EXPECT_THAT(first.err, HasSubstr("showing 50 of 121 — use --all or --offset"));

  auto more = Cli({"jobs", "list", "--queue", queue, "--limit", "110", "--json"});
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_EQ(ParseJson(more.out).as_array().size(), 110u);
  EXPECT_THAT(more.err, HasSubstr("showing 110 of 121"));

  auto all = Cli({"jobs", "list", "--queue", queue, "--all", "--json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(ParseJson(all.out).as_array().size(), 121u);
  EXPECT_EQ(all.err, "");

  auto tail = Cli({"jobs", "list", "--queue", queue, "--offset", "100", "--limit", "21"});
  EXPECT_EQ(tail.err, "");  // exactly the rest: nothing more to say
  auto tagged = Cli({"jobs", "list", "--tag", "tenant", "--limit", "1"});
  EXPECT_THAT(tagged.err, HasSubstr("showing 1; more available"));
  EXPECT_EQ(Cli({"jobs", "list", "--all", "--limit", "5"}).exit_code, 2);
  EXPECT_EQ(Cli({"jobs", "list", "--limit", "0"}).exit_code, 2);
}

TEST_F(CliCommandsTest, ServerRefusalsAndUnreachableServerExitOne) {
  auto missing = Cli({"jobs", "get", "01a227b1-17ac-70b2-8612-af0bc51bf36f"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("redrive: NOT_FOUND: "));
  auto invalid = Cli({"enqueue", "q", "{}", "--priority", "500"});
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_THAT(invalid.err, HasSubstr("VALIDATION_ERROR"));
  auto down = RunRedrive({"--server", "http://127.0.0.1:1", "queues", "list"});
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_THAT(down.err, HasSubstr("redrive: SERVICE_UNAVAILABLE: "));
}

TEST_F(CliCommandsTest, EnqueueFromArgumentAndStdinThenGetAndList) {
  std::string queue = NewQueue("emails");
  auto one = Cli({"enqueue", queue, R"({"to":"ada"})", "--priority", "5", "--tag", "tenant=acme",
                  "--max-retries", "2", "--json"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  std::string id(ParseJson(one.out).at("id").as_string());
  json::object job = Job(id);
  EXPECT_EQ(job.at("priority"), 5);
  EXPECT_EQ(job.at("max_retries"), 2);
  EXPECT_EQ(job.at("tags").at("tenant"), "acme");
  EXPECT_EQ(job.at("payload").at("to"), "ada");

  auto piped = CliWithStdin({"enqueue", queue, "-", "--delay", "1h"}, R"({"n":2})");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  std::string delayed = piped.out.substr(0, piped.out.find('\n'));
  EXPECT_EQ(Job(delayed).at("status"), "scheduled");

  auto get = Cli({"jobs", "get", id});
  ASSERT_EQ(get.exit_code, 0) << get.err;
  EXPECT_THAT(get.out, HasSubstr("Status:"));
  EXPECT_THAT(get.out, HasSubstr("pending"));
  EXPECT_THAT(get.out, HasSubstr("tenant=acme"));
  auto get_json = Cli({"jobs", "get", id, "--json"});
  EXPECT_EQ(ParseJson(get_json.out).at("id"), json::value(id));

  auto list = Cli({"jobs", "list", "--queue", queue});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("ID"));
  EXPECT_THAT(list.out, HasSubstr(id));
  EXPECT_THAT(list.out, HasSubstr("scheduled"));
  auto list_json = Cli({"jobs", "list", "--queue", queue, "--status", "pending", "--json"});
  auto array = ParseJson(list_json.out).as_array();
  ASSERT_EQ(array.size(), 1u);
  EXPECT_EQ(array[0].at("id"), json::value(id));
  EXPECT_EQ(Cli({"jobs", "list", "--status", "nope"}).exit_code, 2);
}

TEST_F(CliCommandsTest, CancelPriorityRetryHistory) {
  std::string queue = NewQueue();
  std::string id = Enqueue(queue);
  auto priority = Cli({"jobs", "priority", id, "7"});
  ASSERT_EQ(priority.exit_code, 0) << priority.err;
  EXPECT_THAT(priority.out, HasSubstr("0 -> 7"));
  ASSERT_EQ(Cli({"jobs", "cancel", id}).exit_code, 0);
  auto again = Cli({"jobs", "cancel", id});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("CONFLICT"));
  auto retry = Cli({"jobs", "retry", id, "--expires-in", "1h"});
  ASSERT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_EQ(Job(id).at("status"), "pending");
  auto history = Cli({"jobs", "history", id});
  EXPECT_THAT(history.out, HasSubstr("cancelled"));
  EXPECT_THAT(history.out, HasSubstr("retried"));
  auto history_json = Cli({"jobs", "history", id, "--json"});
  EXPECT_EQ(ParseJson(history_json.out).as_array().size(), 3u);
}

TEST_F(CliCommandsTest, EnqueueFileReportsFailedLineNumbers) {
  std::string queue = NewQueue("import");
  std::string path = (dir_.path() / "jobs.ndjson").string();
  std::ofstream(path) << "{\"n\":1}\n{\"n\":2}\n\nnot json\n{\"n\":5}\n";
  auto result = Cli({"enqueue", queue, "--file", path, "--tag", "batch=1"});
  EXPECT_EQ(result.exit_code, 1) << result.err;  // a line failed
  EXPECT_THAT(result.out, HasSubstr("enqueued 3 jobs"));
  EXPECT_THAT(result.err, HasSubstr("line 4: INVALID_JSON"));
  EXPECT_THAT(result.err, HasSubstr("1 line failed:"));
  EXPECT_EQ(Get("/jobs?queue_name=" + queue).body.as_array().size(), 3u);

  std::ofstream(path) << "{\"n\":1}\n{\"n\":2}\n";
  auto ok = Cli({"enqueue", queue, "--file", path, "--idempotency-key", "imp", "--json"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ParseJson(ok.out).at("enqueued"), 2);
  auto replay = Cli({"enqueue", queue, "--file", path, "--idempotency-key", "imp", "--json"});
  EXPECT_EQ(ParseJson(replay.out).at("existing"), 2);
}

TEST_F(CliCommandsTest, EnqueueFileServerRefusedLine) {
  std::string queue = NewQueue("import");
  std::string path = (dir_.path() / "jobs.ndjson").string();
  // The server refuses a null payload: line 2 fails, by number.
  std::ofstream(path) << "{\"n\":1}\nnull\n{\"n\":3}\n";
  auto result = Cli({"enqueue", queue, "--file", path});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("line 2: VALIDATION_ERROR"));
  EXPECT_THAT(result.out, HasSubstr("enqueued 2 jobs"));
}

TEST_F(CliCommandsTest, QueuesPauseResumeConfigAndWorkers) {
  std::string queue = NewQueue("billing");
  Enqueue(queue);
  auto config = Cli({"queues", "config", queue, "--max-retries", "5", "--timeout", "2m",
                     "--backoff-base", "0s", "--jitter", "0ms", "--retain-dead", "30d"});
  ASSERT_EQ(config.exit_code, 0) << config.err;
  auto q = Get("/queues/" + queue).body;
  EXPECT_EQ(q.at("max_retries"), 5);
  EXPECT_EQ(q.at("default_timeout"), 120);
  EXPECT_EQ(q.at("backoff").at("base_ms"), 0);
  EXPECT_EQ(q.at("backoff").at("max_ms"), 60000);  // kept, not reset
  EXPECT_EQ(q.at("retention").at("deadletter_seconds"), 30 * 86400);

  ASSERT_EQ(Cli({"queues", "pause", queue, "--reason", "maintenance"}).exit_code, 0);
  auto show = Cli({"queues", "show", queue});
  EXPECT_THAT(show.out, HasSubstr("paused (maintenance)"));
  EXPECT_THAT(show.out, ::testing::ContainsRegex("Timeout: +2m\n"));  // not "2m0s"
  EXPECT_THAT(show.out, ::testing::ContainsRegex("Backoff: +none \\(retried at once\\)\n"));
  EXPECT_THAT(show.out, HasSubstr("1 pending"));
  ASSERT_EQ(Cli({"queues", "resume", queue}).exit_code, 0);
  EXPECT_EQ(Get("/queues/" + queue).body.at("paused"), false);
  auto list = Cli({"queues", "list"});
  EXPECT_THAT(list.out, HasSubstr(queue));
  auto list_json = Cli({"queues", "list", "--json"});
  EXPECT_TRUE(ParseJson(list_json.out).is_array());
  // A bad name is refused; a queue without jobs yet is created paused
  // (CliDlqTest.QueuesPauseAndResumeBeforeTheFirstJob).
  EXPECT_EQ(Cli({"queues", "pause", "no!such"}).exit_code, 1);

  Post("/workers/register",
       {{"queue_name", queue}, {"hostname", "h1"}, {"worker_id", "w-" + queue}});
  auto workers = Cli({"workers", "list"});
  EXPECT_THAT(workers.out, HasSubstr("w-" + queue));
}

}  // namespace
}  // namespace redrive::e2e
