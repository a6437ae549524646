#include "cli/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace redrive::cli {
namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

std::unique_ptr<ChildProcess> RunToEnd(ChildSpec spec, milliseconds limit = milliseconds(10'000)) {
  auto child = ChildProcess::Spawn(spec);
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  (*child)->WaitFor(SteadyClock::now() + limit);
  return std::move(*child);
}

TEST(ChildProcessTest, FeedsStdinAndCapturesBothOutputs) {
  auto child =
      RunToEnd({.argv = {"sh", "-c", "cat; echo oops >&2; exit 3"}, .stdin_data = "{\"a\":1}"});
  ASSERT_TRUE(child->exited());
  EXPECT_EQ(child->exit_code(), 3);
  EXPECT_EQ(child->out(), "{\"a\":1}");
  EXPECT_EQ(child->err_tail(), "oops\n");
}

TEST(ChildProcessTest, PassesEnvironment) {
  auto child = RunToEnd(
      {.argv = {"sh", "-c", "printf %s \"$REDRIVE_JOB_ID\""}, .env = {{"REDRIVE_JOB_ID", "j1"}}});
  EXPECT_EQ(child->out(), "j1");
}

// A child that writes more than a pipe holds before reading its input would
// deadlock a naive write-then-read parent.
TEST(ChildProcessTest, NoDeadlockOnLargeOutputAndInput) {
  std::string input(1 << 20, 'x');
  auto child =
      RunToEnd({.argv = {"sh", "-c",
                         "head -c 300000 /dev/zero; cat >/dev/null; head -c 300000 /dev/zero >&2"},
                .stdin_data = input,
                .stdout_limit = 1000,
                .stderr_tail = 100});
  ASSERT_TRUE(child->exited());
  EXPECT_EQ(child->exit_code(), 0);
  EXPECT_EQ(child->out().size(), 1000u);
  EXPECT_TRUE(child->out_truncated());
  EXPECT_EQ(child->err_tail().size(), 100u);
}

TEST(ChildProcessTest, MissingCommandIsExit127) {
  auto child = RunToEnd({.argv = {"/nonexistent/command"}});
  ASSERT_TRUE(child->exited());
  EXPECT_EQ(child->exit_code(), 127);
}

TEST(ChildProcessTest, StopPredicateAndTerminateKillTheGroup) {
  auto spawned = ChildProcess::Spawn({.argv = {"sh", "-c", "sleep 30; echo late"}});
  ASSERT_TRUE(spawned.ok());
  auto& child = *spawned;
  int polls = 0;
  EXPECT_FALSE(
      child->WaitFor(SteadyClock::now() + milliseconds(10'000), [&] { return ++polls > 3; }));
  auto before = SteadyClock::now();
  child->Terminate(milliseconds(5'000));
  EXPECT_TRUE(child->exited());
  EXPECT_EQ(child->term_signal(), SIGTERM);
  EXPECT_LT(SteadyClock::now() - before, milliseconds(2'000));
}

}  // namespace
}  // namespace redrive::cli
