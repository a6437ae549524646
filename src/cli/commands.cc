#include "cli/commands.h"

#include <CLI/CLI.hpp>

#include "cli/command_tree.h"

namespace redrive::cli {
namespace {

// Lets global flags (--server, --json, ...) follow the subcommand:
// `redrive jobs list --json` as well as `redrive --json jobs list`.
void FallThrough(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->fallthrough();
    FallThrough(*sub);
  }
}

}  // namespace

void AddClientCommands(CLI::App& app, CliContext& ctx) {
  auto before = app.get_subcommands({});
  AddEnqueueCommand(app, ctx);
  AddJobsCommand(app, ctx);
  AddDlqCommand(app, ctx);
  AddQueuesCommand(app, ctx);
  AddWorkersCommand(app, ctx);
  AddWorkCommand(app, ctx);
  AddAuditCommand(app, ctx);
  AddOperationsCommand(app, ctx);
  AddSchedulesCommand(app, ctx);
  AddWorkflowsCommand(app, ctx);
  AddKeysCommand(app, ctx);
  AddAuthCommand(app, ctx);
  AddHelpAndCompletionCommands(app, ctx);
  for (CLI::App* sub : app.get_subcommands({})) {
    if (std::find(before.begin(), before.end(), sub) != before.end()) continue;  // serve
    sub->fallthrough();
    FallThrough(*sub);
  }
}

}  // namespace redrive::cli
