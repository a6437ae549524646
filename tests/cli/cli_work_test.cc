// `redrive work` with small shell scripts as handlers, against a real server.
#include <signal.h>

#include <fstream>

#include "cli/support/cli_fixture.h"
#include "e2e/support/request_counts.h"

namespace redrive::e2e {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;
using SteadyClock = std::chrono::steady_clock;

class CliWorkTest : public CliTest {
 protected:
  // A queue whose failures retry at once and go dead after two runs.
  std::string FastRetryQueue() {
    std::string queue = NewQueue("work");
    auto r =
        Put("/queues/" + queue + "/config",
            {{"max_retries", 1}, {"backoff", {{"base_ms", 0}, {"max_ms", 0}, {"jitter_ms", 0}}}});
    EXPECT_EQ(r.status, 200) << r.raw.body;
    return queue;
  }

  // `n` jobs in `queue` ({"i": 0}, {"i": 1}, …).
  void EnqueueMany(const std::string& queue, int n) {
    json::array jobs;
    for (int i = 0; i < n; ++i) jobs.push_back(json::object{{"payload", {{"i", i}}}});
    auto r = Post("/jobs/bulk", {{"queue_name", queue}, {"jobs", jobs}});
    ASSERT_EQ(r.status, 200) << r.raw.body;
  }
  long long Completed(const std::string& queue) {
    auto r = Get("/jobs/stats?queue_name=" + queue);
    return r.status == 200 ? r.body.at("completed").to_number<long long>() : -1;
  }

  // SIGTERM, then the exit code (graceful stop must be quick).
  int StopWork(cli::ChildProcess& work) {
    work.Signal(SIGTERM);
    work.WaitFor(SteadyClock::now() + seconds(20));
    EXPECT_TRUE(work.exited()) << work.err_tail();
    return work.exited() ? work.exit_code() : -1;
  }
};

TEST_F(CliWorkTest, SuccessWithJsonStdoutAsResultAndJobEnvironment) {
  std::string queue = NewQueue("work");
  std::string script =
      WriteScript("ok.sh",
                  "payload=$(cat)\n"
                  "echo \"{\\\"in\\\":$payload,\\\"attempt\\\":$REDRIVE_ATTEMPT,"
                  "\\\"left\\\":$REDRIVE_RETRIES_LEFT,\\\"id\\\":\\\"$REDRIVE_JOB_ID\\\"}\"");
  std::string id = Enqueue(queue, {{"payload", {{"x", 1}}}, {"max_retries", 2}});
  std::string text = Enqueue(queue);
  auto work = StartWork({queue, "-c", "2", "--", script});
  ASSERT_TRUE(WaitForStatus(id, "completed")) << work->err_tail();
  ASSERT_TRUE(WaitForStatus(text, "completed"));
  json::object job = Job(id);
  EXPECT_EQ(job.at("result").at("in").at("x"), 1);
  EXPECT_EQ(job.at("result").at("attempt"), 1);
  EXPECT_EQ(job.at("result").at("left"), 2);
  EXPECT_EQ(job.at("result").at("id"), json::value(id));
  EXPECT_EQ(StopWork(*work), 0);
}

TEST_F(CliWorkTest, NonJsonStdoutIsWrapped) {
  std::string queue = NewQueue("work");
  std::string script = WriteScript("hello.sh", "cat >/dev/null; echo hello");
  std::string id = Enqueue(queue);
  auto work = StartWork({queue, "--", script});
  ASSERT_TRUE(WaitForStatus(id, "completed")) << work->err_tail();
  EXPECT_EQ(Job(id).at("result").at("stdout"), "hello\n");
  EXPECT_EQ(StopWork(*work), 0);
}

// Fails until "the fix is deployed" (a marker file), then a redrive from
// the CLI completes it. One worker runs throughout: a stopped worker's
// long-poll may still be pending on the server and would claim the redriven
// job for nobody (see docs/cli.md, known issues).
TEST_F(CliWorkTest, FailuresRetryThenDeadWithStderrTailThenRedrive) {
  std::string queue = FastRetryQueue();
  std::string fixed = (dir_.path() / "fixed").string();
  std::string script = WriteScript("flaky.sh",
                                   "cat >/dev/null\n"
                                   "if [ -e " +
                                       fixed +
                                       " ]; then echo '{\"ok\":1}'; exit 0; fi\n"
                                       "echo 'connection refused by upstream' >&2; exit 1");
  std::string id = Enqueue(queue);
  auto work = StartWork({queue, "--", script});
  ASSERT_TRUE(WaitForStatus(id, "deadletter")) << work->err_tail();
  json::object job = Job(id);
  EXPECT_EQ(job.at("dead_reason"), "max_retries_exceeded");
  EXPECT_EQ(job.at("attempts"), 2);
  // The error is the command's own message, so an error prefix matches it;
  // how the command ended is in the failure's history entry.
  EXPECT_EQ(job.at("last_error"), "connection refused by upstream");
  json::array history = Get("/jobs/" + id + "/history").body.as_array();
  EXPECT_EQ(history.back().at("event_type"), "deadlettered");
  EXPECT_EQ(history.back().at("details").at("attempt").at("exit_code"), 1);
  auto prefix =
      Post("/jobs/dlq/retry",
           {{"queue_name", queue}, {"error_prefix", "connection refused"}, {"dry_run", true}});
  EXPECT_EQ(prefix.body.at("matched_count"), 1) << prefix.raw.body;

  std::ofstream(fixed) << "";
  auto dry = Cli({"dlq", "retry", "--queue", queue, "--dry-run", "--json"});
  EXPECT_EQ(ParseJson(dry.out).at("matched_count"), 1);
  auto retry = Cli({"dlq", "retry", "--queue", queue});
  ASSERT_EQ(retry.exit_code, 0) << retry.err;
  EXPECT_THAT(retry.out, HasSubstr(id));
  ASSERT_TRUE(WaitForStatus(id, "completed"));
  EXPECT_EQ(Job(id).at("result").at("ok"), 1);
  EXPECT_EQ(StopWork(*work), 0);
  // The per-job lines say why: the retry line with the stderr that explains it.
  EXPECT_THAT(work->err_tail(), HasSubstr("failed: exit code 1: connection refused by upstream"));
  EXPECT_THAT(work->err_tail(),
              HasSubstr("went to the DLQ (max_retries_exceeded): connection refused by upstream"));
}

TEST_F(CliWorkTest, ExitHundredIsNonRetryable) {
  std::string queue = NewQueue("work");
  std::string script = WriteScript("bad.sh", "echo 'malformed payload' >&2; exit 100");
  std::string id = Enqueue(queue, {{"max_retries", 5}});
  auto work = StartWork({queue, "--", script});
  ASSERT_TRUE(WaitForStatus(id, "deadletter")) << work->err_tail();
  json::object job = Job(id);
  EXPECT_EQ(job.at("dead_reason"), "non_retryable");
  EXPECT_EQ(job.at("attempts"), 1);
  EXPECT_THAT(std::string(job.at("last_error").as_string()), HasSubstr("malformed payload"));
  EXPECT_EQ(StopWork(*work), 0);
}

// The SDK's heartbeats keep a long handler's lease alive, so --timeout is
// what ends a hung command: killed, retryable, stderr kept.
TEST_F(CliWorkTest, TimeoutKillsTheCommandAsRetryableFailure) {
  std::string queue = FastRetryQueue();
  std::string script = WriteScript("hang.sh", "echo 'stuck on I/O' >&2; sleep 60");
  std::string id = Enqueue(queue, {{"max_retries", 0}});
  auto started = SteadyClock::now();
  auto work = StartWork({queue, "--timeout", "1s", "--", script});
  ASSERT_TRUE(WaitForStatus(id, "deadletter")) << work->err_tail();
  EXPECT_LT(SteadyClock::now() - started, seconds(10));
  std::string error(Job(id).at("last_error").as_string());
  EXPECT_THAT(error, HasSubstr("timed out after 1"));
  EXPECT_THAT(error, HasSubstr("stuck on I/O"));
  EXPECT_EQ(StopWork(*work), 0);
}

// An operator cancels a running job: the next heartbeat is refused, the SDK
// cancels the handler, and `redrive work` kills the command.
TEST_F(CliWorkTest, LeaseLossKillsTheCommand) {
  std::string queue = NewQueue("work");
  std::string marker = (dir_.path() / "started").string();
  std::string script = WriteScript("long.sh", "touch " + marker + "; sleep 60; echo finished >&2");
  std::string id = Enqueue(queue);
  auto work = StartWork({queue, "--lease", "5s", "--", script});
  ASSERT_TRUE(WaitForStatus(id, "processing")) << work->err_tail();
  ASSERT_TRUE(WaitUntil([&] { return std::filesystem::exists(marker); })) << work->err_tail();
  ASSERT_EQ(Cli({"jobs", "cancel", id}).exit_code, 0);
  // Heartbeats run every lease/3 (~1.7 s): the kill follows within a few.
  auto deadline = SteadyClock::now() + seconds(15);
  while (SteadyClock::now() < deadline &&
         work->err_tail().find("lease lost") == std::string::npos) {
    work->WaitFor(SteadyClock::now() + std::chrono::milliseconds(100));
  }
  EXPECT_THAT(work->err_tail(), HasSubstr("lease lost"));
  EXPECT_EQ(Job(id).at("status"), "cancelled");
  EXPECT_EQ(StopWork(*work), 0);
}

TEST_F(CliWorkTest, SigtermLetsTheRunningCommandFinish) {
  std::string queue = NewQueue("work");
  std::string marker = (dir_.path() / "started").string();
  std::string script =
      WriteScript("slow.sh", "touch " + marker + "; sleep 2; echo '{\"done\":true}'");
  std::string id = Enqueue(queue);
  auto work = StartWork({queue, "--", script});
  ASSERT_TRUE(WaitForStatus(id, "processing")) << work->err_tail();
  ASSERT_TRUE(WaitUntil([&] { return std::filesystem::exists(marker); })) << work->err_tail();
  EXPECT_EQ(StopWork(*work), 0) << work->err_tail();
  json::object job = Job(id);
  EXPECT_EQ(job.at("status"), "completed");
  EXPECT_EQ(job.at("result").at("done"), true);
}

TEST_F(CliWorkTest, AFailureWithoutStderrSaysHowItEnded) {
  std::string queue = NewQueue("work");
  std::string script = WriteScript("silent.sh", "cat >/dev/null; exit 3");
  std::string id = Enqueue(queue, {{"max_retries", 0}});
  auto work = StartWork({queue, "--", script});
  ASSERT_TRUE(WaitForStatus(id, "deadletter")) << work->err_tail();
  EXPECT_EQ(Job(id).at("last_error"), "exit code 3");
  EXPECT_EQ(StopWork(*work), 0);
}

TEST_F(CliWorkTest, QuietPrintsNoPerJobLines) {
  std::string queue = NewQueue("work");
  std::string script = WriteScript("bad.sh", "echo 'malformed payload' >&2; exit 100");
  std::string id = Enqueue(queue);
  auto work = StartWork({queue, "--quiet", "--", script});
  ASSERT_TRUE(WaitForStatus(id, "deadletter")) << work->err_tail();
  EXPECT_EQ(StopWork(*work), 0);
  EXPECT_EQ(work->err_tail(), "");
}

// A typo in the command fails at start-up, before any job is claimed.
TEST_F(CliWorkTest, AMissingCommandIsRefusedBeforeClaiming) {
  std::string queue = NewQueue("work");
  std::string id = Enqueue(queue);
  auto typo = Cli({"work", queue, "--", "redrive-no-such-handler"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_THAT(typo.err, HasSubstr("`redrive-no-such-handler` not found in PATH"));
  std::string plain = (dir_.path() / "plain.sh").string();
  std::ofstream(plain) << "echo hi\n";
  auto not_executable = Cli({"work", queue, "--", plain});
  EXPECT_EQ(not_executable.exit_code, 2);
  EXPECT_THAT(not_executable.err, HasSubstr("is not executable"));
  json::object job = Job(id);
  EXPECT_EQ(job.at("status"), "pending");
  EXPECT_EQ(job.at("attempts"), 0);
}

// Exit 127 from a shell-run command (the shell's "not found"): the job is
// not failed, it goes back to pending uncharged, and the worker stops.
TEST_F(CliWorkTest, ExitCode127ReleasesTheJobAndStopsTheWorker) {
  std::string queue = NewQueue("work");
  std::string script =
      WriteScript("typo.sh", "cat >/dev/null; echo 'sendmial: not found' >&2; exit 127");
  std::string id = Enqueue(queue, {{"max_retries", 3}});
  auto work = StartWork({queue, "--grace", "1s", "--", script});
  work->WaitFor(SteadyClock::now() + seconds(30));
  ASSERT_TRUE(work->exited()) << work->err_tail();
  EXPECT_EQ(work->exit_code(), 1);
  EXPECT_THAT(work->err_tail(), HasSubstr("could not start (exit code 127: sendmial: not found)"));
  EXPECT_THAT(work->err_tail(), HasSubstr("went back to pending without charging a retry"));
  json::object job = Job(id);
  EXPECT_EQ(job.at("status"), "pending");
  EXPECT_EQ(job.at("retry_count"), 0);
  EXPECT_EQ(job.at("attempts"), 1);
}

// With -c 8 the completions ride on the claims as acks (no complete request
// at all), and a few jobs are prefetched: fewer requests than jobs, where one
// complete per job plus the claims (NoBatchAcks… below) is more than one per
// job. (The batches are small here: a claim carries what finished during the
// previous one, and starting a command takes longer than a claim.)
TEST_F(CliWorkTest, ConcurrentWorkBatchesCompletionsOnClaims) {
  std::string queue = NewQueue("work");
  constexpr int kJobs = 200;
  EnqueueMany(queue, kJobs);
  auto before = WorkerRequests(*client_);
  auto work = StartWork({queue, "-c", "8", "--quiet", "--", "true"});
  ASSERT_TRUE(WaitUntil([&] { return Completed(queue) == kJobs; }, seconds(60)))
      << work->err_tail();
  EXPECT_EQ(StopWork(*work), 0);
  auto after = WorkerRequests(*client_);
  EXPECT_EQ(after["{id}/complete"], before["{id}/complete"]);
  EXPECT_LT(RequestsBetween(before, after), kJobs);
}

// --no-batch-acks --prefetch 0: one complete request per job, as before.
TEST_F(CliWorkTest, NoBatchAcksCompletesEachJobWithItsOwnRequest) {
  std::string queue = NewQueue("work");
  constexpr int kJobs = 40;
  EnqueueMany(queue, kJobs);
  auto before = WorkerRequests(*client_);
  auto work =
      StartWork({queue, "-c", "8", "--prefetch", "0", "--no-batch-acks", "--quiet", "--", "true"});
  ASSERT_TRUE(WaitUntil([&] { return Completed(queue) == kJobs; }, seconds(60)))
      << work->err_tail();
  EXPECT_EQ(StopWork(*work), 0);
  auto after = WorkerRequests(*client_);
  EXPECT_EQ(after["{id}/complete"] - before["{id}/complete"], kJobs);
  EXPECT_EQ(after["ack"], before["ack"]);
  EXPECT_GT(RequestsBetween(before, after), kJobs);
}

TEST_F(CliWorkTest, UsageAndUnreachableServer) {
  EXPECT_EQ(Cli({"work", "q"}).exit_code, 2);  // no command
  EXPECT_EQ(Cli({"work", "q", "--prefetch", "-2", "--", "true"}).exit_code, 2);
  auto down = RunRedrive({"--server", "http://127.0.0.1:1", "work", "q", "--", "true"});
  EXPECT_EQ(down.exit_code, 1);
  EXPECT_THAT(down.err, HasSubstr("redrive: "));
}

}  // namespace
}  // namespace redrive::e2e
