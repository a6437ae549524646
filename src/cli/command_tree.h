// What the CLI11 command tree can tell a user about itself: which word of a
// command line is not a command (with the closest one, by edit distance),
// `redrive help [COMMAND…]`, and shell completion scripts generated from the
// same tree, so they cannot drift from the commands that exist.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_context.h"

namespace CLI {
class App;
}

namespace redrive::cli {

// The candidate closest to `word`, if close enough to be a likely typo (at
// most 2 edits, and fewer than half of `word`'s length).
std::optional<std::string> ClosestWord(std::string_view word,
                                       const std::vector<std::string>& candidates);

// For a command line that failed to parse: "unknown command 'jobs lst'; did
// you mean 'jobs list'?" when a word where a subcommand belongs is not one;
// nullopt when the line's commands are all known (the error is elsewhere).
// `args` excludes the program name.
std::optional<std::string> UnknownCommandMessage(const CLI::App& root,
                                                 const std::vector<std::string>& args);

// Scripts for `source <(redrive completion bash)` and zsh: the subcommands
// and options of every command of `root`, with the root's global options.
std::string BashCompletion(const CLI::App& root);
std::string ZshCompletion(const CLI::App& root);

// Adds `help [COMMAND…]` and `completion bash|zsh` to `root`.
void AddHelpAndCompletionCommands(CLI::App& root, CliContext& ctx);

}  // namespace redrive::cli
