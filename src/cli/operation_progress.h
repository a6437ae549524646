// Running a bulk operation from the CLI: create it, then follow it (GET
// /operations/{id} every second) with a progress bar on a terminal or a
// plain line per change off one, until it finishes; then a final summary.
// Shared by `dlq retry --all`, `dlq purge --all` and `operations show --follow`.
#pragma once

#include <string>

#include "cli/cli_context.h"
#include "redrive/client.h"

namespace redrive::cli {

// Creates `request` and follows it to its end. `verb`: "retried",
// "purged". Exit status: ok when it completed, an error when it failed or
// was cancelled.
int RunOperationToEnd(CliContext& ctx, const sdk::OperationRequest& request,
                      const std::string& verb);
// Follows an existing operation (the same output).
int FollowOperation(CliContext& ctx, const std::string& id, const std::string& verb);
// The one-line state of an operation: "running: 500 of 1,200 (2 failed), ETA 3s".
std::string OperationLine(const Operation& op, const std::string& verb);

}  // namespace redrive::cli
