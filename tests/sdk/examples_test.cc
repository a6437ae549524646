// The examples, run live: examples/producer enqueues, examples/worker
// processes until SIGTERM and exits 0.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "sdk/support/sdk_fixture.h"

namespace redrive::sdk_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Starts `binary args…` with REDRIVE_URL set and stdout+stderr to `log`.
pid_t Spawn(const std::string& binary, const std::vector<std::string>& args, const std::string& url,
            const std::filesystem::path& log) {
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  ::setenv("REDRIVE_URL", url.c_str(), 1);
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(binary.c_str(), argv.data());
  ::_exit(127);
}

// The exit code, or 128 + signal; -1 on timeout.
int WaitExit(pid_t pid, std::chrono::milliseconds timeout) {
  int status = 0;
  bool exited = WaitUntil([&] { return ::waitpid(pid, &status, WNOHANG) == pid; }, timeout);
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class ExamplesTest : public SdkTest {};

TEST_F(ExamplesTest, ProducerThenWorkerThenSigterm) {
  const auto q = NewQueue("squares");
  const auto dir = server_->data_dir();
  pid_t producer = Spawn(EXAMPLE_PRODUCER, {q, "4"}, server_->base_url(), dir / "producer.log");
  ASSERT_EQ(WaitExit(producer, std::chrono::seconds(10)), 0) << ReadFile(dir / "producer.log");
  EXPECT_EQ(client_->Stats(q)->pending, 4);

  pid_t worker = Spawn(EXAMPLE_WORKER, {q}, server_->base_url(), dir / "worker.log");
  EXPECT_TRUE(WaitUntil([&] { return client_->Stats(q)->completed == 4; }))
      << ReadFile(dir / "worker.log");
  ::kill(worker, SIGTERM);
  EXPECT_EQ(WaitExit(worker, std::chrono::seconds(10)), 0) << ReadFile(dir / "worker.log");

  const std::string out = ReadFile(dir / "worker.log");
  EXPECT_THAT(out, HasSubstr("square=16"));
  EXPECT_THAT(out, HasSubstr("stopped"));
  // The example registered one worker for q; SIGTERM deregistered it.
  auto workers = client_->ListWorkers();
  ASSERT_TRUE(workers.ok());
  std::vector<std::string> statuses;
  for (const auto& w : *workers) {
    if (w.queue_name == q) statuses.push_back(w.status);
  }
  EXPECT_THAT(statuses, ElementsAre("offline"));
}

}  // namespace
}  // namespace redrive::sdk_test
