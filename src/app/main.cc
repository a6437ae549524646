// The `redrive` binary: parses the command line and runs a subcommand.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <iostream>
#include <string>
#include <vector>

#include "app/backup_command.h"
#include "app/config_file.h"
#include "app/serve_command.h"
#include "app/serve_flags.h"
#include "cli/cli_context.h"
#include "cli/command_tree.h"
#include "cli/commands.h"
#include "server/serve_config.h"

namespace {

// CLI11's errors in one line, not two: this often ends up in a service log.
int UsageError(const std::string& message) {
  std::cerr << "redrive: " << message << " (see redrive --help)\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Writes to a vanished peer or pipe must fail with EPIPE, not kill us.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"Redrive: a durable job queue with a Spooled-compatible REST API", "redrive"};
  app.set_version_flag("--version", "redrive " REDRIVE_VERSION);
  app.require_subcommand(1);

  redrive::server::ServeFlags serve_flags;
  CLI::App* serve = app.add_subcommand("serve", "Run the Redrive server");
  redrive::app::AddServeFlags(*serve, serve_flags);
  std::string config_path;
  serve
      ->add_option("--config", config_path,
                   "A file of serve flags (KEY = VALUE, TOML); flags and their env twins win "
                   "over it, it wins over the defaults. See docs/deploy.md")
      ->envname("REDRIVE_CONFIG");

  redrive::app::BackupFlags backup_flags;
  CLI::App* backup = redrive::app::AddBackupCommand(app, backup_flags);

  // Every other subcommand is a client of a running server (src/cli/).
  redrive::cli::CliContext cli;
  redrive::cli::AddGlobalFlags(app, cli.flags);
  redrive::cli::AddClientCommands(app, cli);
  app.footer(
      "Exit codes: 0 ok, 1 the server said no (or is unreachable), 2 usage error.\n"
      "Run `redrive COMMAND --help` for a command's flags and examples.");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    // A mistyped command gets its name and the closest one, not CLI11's
    // "A subcommand is required".
    auto unknown = redrive::cli::UnknownCommandMessage(app, {argv + 1, argv + argc});
    return UsageError(unknown.value_or(e.what()));
  }

  if (serve->parsed()) {
    if (!config_path.empty()) {
      // The file fills in what the command line and the environment left
      // unset, as more arguments; then everything is parsed once more.
      auto extra = redrive::app::ConfigFileArguments(*serve, config_path);
      if (!extra.ok()) {
        std::cerr << "redrive: " << extra.status().message() << "\n";
        return 2;
      }
      for (const std::string& warning : extra->warnings)
        std::cerr << "redrive: " << warning << "\n";
      std::vector<std::string> args(argv + 1, argv + argc);
      args.insert(args.end(), extra->args.begin(), extra->args.end());
      std::reverse(args.begin(), args.end());  // CLI11 takes them last first
      try {
        app.parse(std::move(args));
      } catch (const CLI::ParseError& e) {
        return UsageError(std::string(e.what()) + " (in " + config_path + ")");
      }
    }
    auto config = redrive::server::MakeServeConfig(serve_flags);
    if (!config.ok()) {
      std::cerr << "redrive: " << config.status().message() << "\n";
      return 2;
    }
    return redrive::app::RunServe(*config);
  }
  if (backup->parsed()) return redrive::app::RunBackup(backup_flags);
  if (cli.action()) return cli.action()();
  return 2;  // unreachable: require_subcommand(1)
}
