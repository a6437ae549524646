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
