#include "cli/cli_context.h"

#include <CLI/CLI.hpp>
#include <iostream>

namespace redrive::cli {

sdk::ClientOptions CliContext::client_options() const {
  sdk::ClientOptions options;
  options.server_url = flags.server;
  options.api_key = flags.api_key;
  options.reason = flags.reason;
  return options;
}

std::shared_ptr<sdk::Client> CliContext::shared_client() {
  if (!client_) client_ = std::make_shared<sdk::Client>(client_options());
  return client_;
}

sdk::Client& CliContext::client() { return *shared_client(); }

void CliContext::OnRun(CLI::App* command, std::function<int()> run) {
  command->callback([this, run = std::move(run)] { action_ = run; });
}

void AddGlobalFlags(CLI::App& app, GlobalFlags& flags) {
  app.add_option("--server", flags.server, "Redrive server URL")
      ->envname("REDRIVE_URL")
      ->capture_default_str();
  app.add_option("--api-key", flags.api_key, "API key, sent as a Bearer token")
      ->envname("REDRIVE_API_KEY");
  app.add_flag("--json", flags.json, "Print the server's JSON, one line, instead of tables");
  app.add_option("--why", flags.reason,
                 "Why you make this change: kept with it in the server's audit log");
}

int ReportError(const Status& status) {
  std::cerr << "redrive: " << ErrorCodeName(status.code()) << ": " << status.message();
  if (!status.field().empty()) std::cerr << " (field " << status.field() << ")";
  std::cerr << "\n";
  return kExitRefused;
}

int UsageError(const std::string& message) {
  std::cerr << "redrive: " << message << "\n";
  return kExitUsage;
}

}  // namespace redrive::cli
