#include "cli/command_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>

#include "cli/child_process.h"
#include "cli/commands.h"

namespace redrive::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ClosestWordTest, OnlyLikelyTypos) {
  std::vector<std::string> words = {"list", "get", "history", "cancel"};
  EXPECT_EQ(ClosestWord("lst", words), "list");
  EXPECT_EQ(ClosestWord("histroy", words), "history");
  EXPECT_EQ(ClosestWord("foo", words), std::nullopt);
  EXPECT_EQ(ClosestWord("x", words), std::nullopt);  // one letter: anything is 1 edit away
}

// The real `redrive` tree, as main() builds it (minus serve).
class CommandTreeTest : public ::testing::Test {
 protected:
  CommandTreeTest() : app_("test", "redrive") {
    app_.require_subcommand(1);
    AddGlobalFlags(app_, ctx_.flags);
    AddClientCommands(app_, ctx_);
  }
  std::optional<std::string> Unknown(std::vector<std::string> args) {
    return UnknownCommandMessage(app_, args);
  }
  CLI::App app_;
  CliContext ctx_;
};

TEST_F(CommandTreeTest, NamesTheUnknownWordAndTheClosestCommand) {
  EXPECT_EQ(Unknown({"jobs", "lst"}), "unknown command 'jobs lst'; did you mean 'jobs list'?");
  EXPECT_EQ(Unknown({"--json", "qeues", "list"}),
            "unknown command 'qeues'; did you mean 'queues'?");
  auto foo = Unknown({"foo"});
  ASSERT_TRUE(foo);
  EXPECT_THAT(*foo, HasSubstr("unknown command 'foo' (commands: "));
  EXPECT_THAT(*foo, HasSubstr("jobs"));
}

TEST_F(CommandTreeTest, SkipsOptionValuesAndStopsAtLeafArguments) {
  // "foo" is --server's value, then `jobs list` is a known command.
  EXPECT_EQ(Unknown({"--server", "foo", "jobs", "list", "--bogus"}), std::nullopt);
  EXPECT_EQ(Unknown({"--server=http://x", "jobz"}), "unknown command 'jobz'; did you mean 'jobs'?");
  // A leaf's arguments are not commands.
  EXPECT_EQ(Unknown({"enqueue", "emails", "{}"}), std::nullopt);
  EXPECT_EQ(Unknown({"work", "q", "--", "lst"}), std::nullopt);
  EXPECT_EQ(Unknown({}), std::nullopt);  // nothing unknown: CLI11's message stands
}

// Runs `script` in bash; returns its stdout (exit code in *code).
std::string Bash(const std::string& script, int* code) {
  auto child = ChildProcess::Spawn({.argv = {"bash", "--norc", "-c", script}});
  EXPECT_TRUE(child.ok());
  (*child)->WaitFor(std::chrono::steady_clock::now() + std::chrono::seconds(20));
  EXPECT_TRUE((*child)->exited());
  *code = (*child)->exit_code();
  return (*child)->out() + (*child)->err_tail();
}

TEST_F(CommandTreeTest, BashCompletionIsValidAndCompletesCommandsAndOptions) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("redrive-completion-" + std::to_string(getpid()) + ".bash"))
                         .string();
  std::ofstream(path) << BashCompletion(app_);
  int code = -1;
  Bash("bash -n " + path, &code);
  EXPECT_EQ(code, 0);
  auto complete = [&](const std::string& words, int cword) {
    int rc = -1;
    std::string out = Bash("source " + path + "; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                               std::to_string(cword) + "; _redrive; echo \"${COMPREPLY[*]}\"",
                           &rc);
    EXPECT_EQ(rc, 0) << out;
    return out;
  };
  EXPECT_EQ(complete("redrive jo", 1), "jobs\n");
  EXPECT_EQ(complete("redrive jobs l", 2), "list\n");
  EXPECT_EQ(complete("redrive --json jobs list --st", 4), "--status\n");
  EXPECT_THAT(complete("redrive jobs list --", 3), HasSubstr("--server"));  // global flags
  EXPECT_TRUE(complete("redrive completion ''", 2).starts_with("bash zsh "));
  EXPECT_THAT(complete("redrive work q -- ''", 4), Not(HasSubstr("--concurrency")));
  std::filesystem::remove(path);
}

TEST_F(CommandTreeTest, ZshCompletionNamesTheSameCommands) {
  std::string zsh = ZshCompletion(app_);
  EXPECT_TRUE(zsh.starts_with("#compdef redrive\n"));
  EXPECT_THAT(zsh,
              HasSubstr("'redrive jobs' 'list get history cancel retry release move priority"));
  EXPECT_THAT(zsh, HasSubstr("compdef _redrive redrive"));
}

}  // namespace
}  // namespace redrive::cli
