#include "cli/job_runner.h"

#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

namespace redrive::cli {
namespace {

TEST(ResultFromStdoutTest, JsonIsTheResult) {
  EXPECT_EQ(boost::json::serialize(ResultFromStdout("{\"ok\":true}\n", false)), "{\"ok\":true}");
  EXPECT_EQ(boost::json::serialize(ResultFromStdout("42", false)), "42");
}

TEST(ResultFromStdoutTest, OtherTextIsWrapped) {
  EXPECT_EQ(boost::json::serialize(ResultFromStdout("hello\n", false)),
            "{\"stdout\":\"hello\\n\"}");
  EXPECT_TRUE(ResultFromStdout("  \n", false).is_null());
  // Truncated output is never taken as JSON, even if the prefix parses.
  auto big = ResultFromStdout(std::string(100'000, '7'), true);
  EXPECT_EQ(big.at("stdout").as_string().size(), kStdoutResultLimit);
}

TEST(FailureMessageTest, KeepsTheEndOfStderr) {
  EXPECT_EQ(FailureMessage("exit code 1", ""), "exit code 1");
  EXPECT_EQ(FailureMessage("exit code 1", "boom\n"), "exit code 1: boom");
  std::string tail = std::string(3000, 'a') + "THE END";
  std::string message = FailureMessage("exit code 1", tail);
  EXPECT_EQ(message.size(), kErrorLimit);
  EXPECT_TRUE(message.starts_with("exit code 1: aaa"));
  EXPECT_TRUE(message.ends_with("THE END"));
}

// The job's error is the command's own message, so `dlq retry
// --error-prefix 'gateway timeout'` matches it; how it ended is in details.
TEST(FailureErrorTest, IsTheCommandsOwnMessage) {
  RunEnd end{.exit_code = 1, .stderr_tail = "gateway timeout after 30s\n"};
  EXPECT_EQ(FailureError(end), "gateway timeout after 30s");
  EXPECT_EQ(boost::json::serialize(FailureDetails(end)), R"({"exit_code":1})");
  EXPECT_EQ(VerdictOf(end), RunVerdict::kRetryableFailure);
}

TEST(FailureErrorTest, WithoutStderrSaysHowItEnded) {
  EXPECT_EQ(FailureError(RunEnd{.exit_code = 3}), "exit code 3");
  EXPECT_EQ(FailureError(RunEnd{.exit_code = 3, .stderr_tail = "\n"}), "exit code 3");
  RunEnd killed{.exit_code = -1, .term_signal = 9};
  EXPECT_EQ(FailureError(killed), "killed by signal 9 (Killed)");
  EXPECT_EQ(boost::json::serialize(FailureDetails(killed)),
            R"({"signal":9,"signal_name":"SIGKILL"})");
}

TEST(FailureErrorTest, WhenWeEndedItTheReasonComesFirst) {
  RunEnd timed_out{.exit_code = -1,
                   .term_signal = 15,
                   .timed_out_after = std::chrono::minutes(2),
                   .stderr_tail = "stuck on I/O\n"};
  EXPECT_EQ(FailureError(timed_out), "timed out after 2m: command killed: stuck on I/O");
  EXPECT_EQ(FailureDetails(timed_out).at("timed_out_after_ms"), 120000);
  EXPECT_EQ(VerdictOf(timed_out), RunVerdict::kRetryableFailure);
  RunEnd lost{.exit_code = -1, .term_signal = 15, .lease_lost = true};
  EXPECT_EQ(FailureError(lost), "lease lost: command killed");
  EXPECT_EQ(FailureDetails(lost).at("lease_lost"), true);
}

TEST(FailureErrorTest, KeepsTheEndOfALongStderr) {
  std::string error =
      FailureError(RunEnd{.exit_code = 1, .stderr_tail = std::string(3000, 'a') + "THE END"});
  EXPECT_EQ(error.size(), kErrorLimit);
  EXPECT_TRUE(error.ends_with("THE END"));
}

TEST(VerdictTest, ExitCodesOfAShell) {
  EXPECT_EQ(VerdictOf(RunEnd{.exit_code = 0}), RunVerdict::kCompleted);
  EXPECT_EQ(VerdictOf(RunEnd{.exit_code = 100}), RunVerdict::kNonRetryableFailure);
  EXPECT_EQ(VerdictOf(RunEnd{.exit_code = 126}), RunVerdict::kRefused);
  EXPECT_EQ(VerdictOf(RunEnd{.exit_code = 127}), RunVerdict::kRefused);
  EXPECT_EQ(VerdictOf(RunEnd{.exit_code = 2}), RunVerdict::kRetryableFailure);
  // A killed command did start: its end is a failure, whatever the code.
  EXPECT_EQ(VerdictOf(RunEnd{.exit_code = 127, .lease_lost = true}), RunVerdict::kRetryableFailure);
}

// The per-job log line says why, with the last line of stderr.
TEST(RunSummaryTest, IncludesTheLastLineOfStderr) {
  EXPECT_EQ(RunSummary(RunEnd{.exit_code = 1, .stderr_tail = "connecting\nrefused by upstream\n"}),
            "failed: exit code 1: refused by upstream");
  EXPECT_EQ(RunSummary(RunEnd{.exit_code = 1}), "failed: exit code 1");
  EXPECT_EQ(RunSummary(RunEnd{.exit_code = 100, .stderr_tail = "bad payload"}),
            "failed for good (exit 100): bad payload");
  EXPECT_EQ(RunSummary(RunEnd{.exit_code = 127, .stderr_tail = "sh: 1: sendmial: not found"}),
            "could not start (exit 127): sh: 1: sendmial: not found");
  EXPECT_EQ(RunSummary(RunEnd{.exit_code = 0, .stderr_tail = "warning"}), "completed");
  std::string line = LastLine(std::string(500, 'x'));
  EXPECT_EQ(line, std::string(kLogExcerptLimit, 'x') + "…");
}

TEST(JobEnvironmentTest, AttemptAndRetryBudget) {
  sdk::ClaimedJob job;
  // Moved-in strings: assigning literals draws a false -Wrestrict from
  // GCC 12 at -O3.
  job.id = std::string("j");
  job.queue_name = std::string("q");
  job.retry_count = 1;
  job.max_retries = 3;
  auto env = JobEnvironment(job);
  std::map<std::string, std::string> m(env.begin(), env.end());
  EXPECT_EQ(m["REDRIVE_JOB_ID"], "j");
  EXPECT_EQ(m["REDRIVE_QUEUE"], "q");
  EXPECT_EQ(m["REDRIVE_ATTEMPT"], "2");
  EXPECT_EQ(m["REDRIVE_MAX_RETRIES"], "3");
  EXPECT_EQ(m["REDRIVE_RETRIES_LEFT"], "2");
}

}  // namespace
}  // namespace redrive::cli
