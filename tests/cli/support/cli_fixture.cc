#include "cli/support/cli_fixture.h"

#include <sys/stat.h>

#include <fstream>

namespace redrive::e2e {

ExitResult CliTest::Cli(std::vector<std::string> args, std::chrono::milliseconds timeout) {
  args.insert(args.begin(), {"--server", server_->base_url()});
  return RunRedrive(args, timeout);
}

ExitResult CliTest::CliWithStdin(std::vector<std::string> args, const std::string& input) {
  std::vector<std::string> argv{REDRIVE_BINARY, "--server", server_->base_url()};
  argv.insert(argv.end(), args.begin(), args.end());
  auto child =
      cli::ChildProcess::Spawn({.argv = argv, .stdin_data = input, .stderr_tail = 1 << 20});
  ExitResult result;
  if (!child.ok()) return result;
  (*child)->WaitFor(std::chrono::steady_clock::now() + std::chrono::seconds(30));
  result.exit_code = (*child)->exited() ? (*child)->exit_code() : -1;
  result.out = (*child)->out();
  result.err = (*child)->err_tail();
  return result;
}

std::unique_ptr<cli::ChildProcess> CliTest::StartWork(std::vector<std::string> args) {
  std::vector<std::string> argv{REDRIVE_BINARY, "--server", server_->base_url(), "work"};
  argv.insert(argv.end(), args.begin(), args.end());
  auto child = cli::ChildProcess::Spawn({.argv = argv, .stderr_tail = 1 << 20});
  EXPECT_TRUE(child.ok());
  return child.ok() ? std::move(*child) : nullptr;
}

::testing::AssertionResult CliTest::WaitForStatus(const std::string& id, const std::string& status,
                                                  std::chrono::milliseconds timeout) {
  std::string last;
  const bool reached = WaitUntil(
      [&] {
        auto r = Get("/jobs/" + id);
        if (r.status == 200) last = std::string(r.body.at("status").as_string());
        return last == status;
      },
      timeout);
  if (reached) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "job " << id << " is " << last << ", not " << status;
}

std::string CliTest::WriteScript(const std::string& name, const std::string& body) {
  auto path = dir_.path() / name;
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  chmod(path.c_str(), 0755);
  return path.string();
}

json::value ParseJson(const std::string& text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  EXPECT_FALSE(ec) << "not JSON: " << text;
  return v;
}

}  // namespace redrive::e2e
