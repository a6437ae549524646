// A fixture for tests of the `redrive` client commands: one real server per
// suite (ApiTest), the CLI run as the real binary against it, and helpers to
// set up state over HTTP (independently of the SDK the CLI is built on).
#pragma once

#include <gmock/gmock.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "cli/child_process.h"
#include "e2e/support/api_fixture.h"
#include "e2e/support/temp_dir.h"
#include "e2e/support/wait.h"

namespace redrive::e2e {

class CliTest : public ApiTest {
 protected:
  // `redrive --server <this server> args…`, run to completion.
  ExitResult Cli(std::vector<std::string> args,
                 std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // Same, with `input` on stdin.
  ExitResult CliWithStdin(std::vector<std::string> args, const std::string& input);

  // Starts `redrive --server … work args…` in the background.
  std::unique_ptr<cli::ChildProcess> StartWork(std::vector<std::string> args);

  // Waits (polling, up to `timeout`) for the job's status.
  ::testing::AssertionResult WaitForStatus(
      const std::string& id, const std::string& status,
      std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // Writes an executable `sh` script into the test's temp dir; returns its path.
  std::string WriteScript(const std::string& name, const std::string& body);

  TempDir dir_;
};

// The fields of a JSON line the CLI printed (--json).
json::value ParseJson(const std::string& text);

}  // namespace redrive::e2e
