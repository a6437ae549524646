// What every client subcommand shares: the global flags (--server,
// --api-key, --json), the SDK client they configure, the exit-code
// convention, and the deferred action the parsed subcommand runs.
//
// Subcommands register on CLI11 while main() parses; parsing runs no I/O.
// Each leaf command's callback only stores its action in the context, and
// main() runs it after parsing succeeded, so a usage error never half-runs a
// command.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/status.h"
#include "redrive/client.h"

namespace CLI {
class App;
}

namespace redrive::cli {

// Exit codes scripts can rely on (docs/cli.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;  // the server said no, or is unreachable
inline constexpr int kExitUsage = 2;    // bad flags or arguments

struct GlobalFlags {
  std::string server = "http://127.0.0.1:7070";
  std::string api_key;
  bool json = false;   // print the server's JSON (one line) instead of tables
  std::string reason;  // --why: kept in the server's audit log with each change made
};

class CliContext {
 public:
  GlobalFlags flags;

  // The client for flags.server/api_key, created on first use. Not thread-safe
  // to create; the Client itself is.
  sdk::Client& client();
  std::shared_ptr<sdk::Client> shared_client();
  sdk::ClientOptions client_options() const;

  // Registers `run` as what `command` does when it is the parsed leaf.
  void OnRun(CLI::App* command, std::function<int()> run);
  // The parsed leaf's action; empty when no leaf command was parsed.
  const std::function<int()>& action() const { return action_; }

 private:
  std::shared_ptr<sdk::Client> client_;
  std::function<int()> action_;
};

// Adds --server/REDRIVE_URL, --api-key/REDRIVE_API_KEY, --json and --why to `app`.
// With fallthrough set on subcommands they are accepted anywhere on the line.
void AddGlobalFlags(CLI::App& app, GlobalFlags& flags);

// "redrive: CODE: message" on stderr; returns kExitRefused.
int ReportError(const Status& status);
// "redrive: message" on stderr; returns kExitUsage.
int UsageError(const std::string& message);

}  // namespace redrive::cli
