// The `redrive` binary: parses the command line and runs a subcommand.
#include <CLI/CLI.hpp>
#include <csignal>
#include <iostream>

#include "app/serve_command.h"
#include "app/serve_flags.h"
#include "cli/cli_context.h"
#include "cli/command_tree.h"
#include "cli/commands.h"
#include "server/serve_config.h"

int main(int argc, char** argv) {
  // Writes to a vanished peer or pipe must fail with EPIPE, not kill us.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"Redrive: a durable job queue with a Spooled-compatible REST API", "redrive"};
  app.set_version_flag("--version", "redrive " REDRIVE_VERSION);
  app.require_subcommand(1);

  redrive::server::ServeFlags serve_flags;
  CLI::App* serve = app.add_subcommand("serve", "Run the Redrive server");
  redrive::app::AddServeFlags(*serve, serve_flags);

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
    // One line, not CLI11's two: this often ends up in a service log. A
    // mistyped command gets its name and the closest one, not CLI11's
    // "A subcommand is required".
    auto unknown = redrive::cli::UnknownCommandMessage(app, {argv + 1, argv + argc});
    std::cerr << "redrive: " << unknown.value_or(e.what()) << " (see redrive --help)\n";
    return 2;
  }

  if (serve->parsed()) {
    auto config = redrive::server::MakeServeConfig(serve_flags);
    if (!config.ok()) {
      std::cerr << "redrive: " << config.status().message() << "\n";
      return 2;
    }
    return redrive::app::RunServe(*config);
  }
  if (cli.action()) return cli.action()();
  return 2;  // unreachable: require_subcommand(1)
}
