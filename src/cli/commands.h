// The client subcommands of the `redrive` binary, one file each. Each Add*
// function registers its command group on `app` and its actions on `ctx`
// (see cli_context.h); nothing runs until main() calls ctx.action().
#pragma once

#include "cli/cli_context.h"

namespace CLI {
class App;
}

namespace redrive::cli {

void AddEnqueueCommand(CLI::App& app, CliContext& ctx);  // enqueue_command.cc
void AddJobsCommand(CLI::App& app, CliContext& ctx);     // jobs_command.cc
void AddJobsMove(CLI::App& jobs, CliContext& ctx);       // jobs_move_command.cc (jobs move)
void AddDlqCommand(CLI::App& app, CliContext& ctx);      // dlq_command.cc
// `dlq autoredrive ...`, added to the dlq group by AddDlqCommand.
void AddAutoredriveCommand(CLI::App& dlq, CliContext& ctx);  // autoredrive_command.cc
void AddQueuesCommand(CLI::App& app, CliContext& ctx);       // queues_command.cc
void AddWorkersCommand(CLI::App& app, CliContext& ctx);      // workers_command.cc
void AddWorkCommand(CLI::App& app, CliContext& ctx);         // work_command.cc
void AddAuditCommand(CLI::App& app, CliContext& ctx);        // audit_command.cc
void AddOperationsCommand(CLI::App& app, CliContext& ctx);   // operations_command.cc
void AddSchedulesCommand(CLI::App& app, CliContext& ctx);    // schedules_command.cc
void AddWorkflowsCommand(CLI::App& app, CliContext& ctx);    // workflows_command.cc
void AddKeysCommand(CLI::App& app, CliContext& ctx);         // keys_command.cc
void AddAuthCommand(CLI::App& app, CliContext& ctx);         // auth_command.cc

// All of the above, and `help` and `completion` (command_tree.h).
void AddClientCommands(CLI::App& app, CliContext& ctx);

}  // namespace redrive::cli
