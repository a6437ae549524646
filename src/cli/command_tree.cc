#include "cli/command_tree.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "cli/output.h"
#include "core/edit_distance.h"

namespace redrive::cli {
namespace {

const std::vector<std::string> kShells = {"bash", "zsh"};

std::vector<const CLI::App*> Subcommands(const CLI::App& app) { return app.get_subcommands({}); }

std::vector<std::string> SubcommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : Subcommands(app)) names.push_back(sub->get_name());
  return names;
}

const CLI::App* FindSubcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : Subcommands(app)) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

// `name` ("--server", "-c") on `app` or, as options fall through, on a parent.
const CLI::Option* FindOption(const CLI::App& app, const std::string& name) {
  for (const CLI::App* a = &app; a != nullptr; a = a->get_parent()) {
    if (const CLI::Option* opt = a->get_option_no_throw(name)) return opt;
  }
  return nullptr;
}

std::string Join(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : std::string(sep)) + w;
  return out;
}

// Every command of the tree by its path ("redrive", "redrive jobs", ...),
// with the words that may follow it: subcommands, then options.
std::map<std::string, std::vector<std::string>> CompletionTable(const CLI::App& root) {
  std::map<std::string, std::vector<std::string>> table;
  std::vector<std::string> global;  // the root's options are accepted everywhere
  for (const CLI::Option* opt : root.get_options()) {
    for (const std::string& l : opt->get_lnames()) global.push_back("--" + l);
  }
  std::function<void(const CLI::App&, const std::string&)> walk = [&](const CLI::App& app,
                                                                      const std::string& path) {
    std::vector<std::string> words = SubcommandNames(app);
    if (app.get_name() == "completion") words = kShells;
    if (app.get_name() == "help" && app.get_parent() == &root) words = SubcommandNames(root);
    for (const CLI::Option* opt : app.get_options()) {
      for (const std::string& l : opt->get_lnames()) words.push_back("--" + l);
      for (const std::string& s : opt->get_snames()) words.push_back("-" + s);
    }
    if (&app != &root) {
      for (const std::string& g : global) {
        if (g != "--version" && std::find(words.begin(), words.end(), g) == words.end()) {
          words.push_back(g);
        }
      }
    }
    table[path] = words;
    for (const CLI::App* sub : Subcommands(app)) walk(*sub, path + " " + sub->get_name());
  };
  walk(root, root.get_name());
  return table;
}

std::string FunctionName(const CLI::App& root) { return "_" + root.get_name(); }

int RunHelp(const CLI::App& root, const std::vector<std::string>& words) {
  const CLI::App* cmd = &root;
  std::string path = root.get_name();
  for (const std::string& w : words) {
    const CLI::App* sub = FindSubcommand(*cmd, w);
    if (sub == nullptr) {
      auto message = UnknownCommandMessage(root, words);
      return UsageError(message.value_or("no command '" + w + "'"));
    }
    cmd = sub;
    path += " " + w;
  }
  // Not App::help(): it shows the parsed subcommand's help, here `help`'s own.
  std::cout << cmd->get_formatter()->make_help(cmd, path, CLI::AppFormatMode::Normal);
  return kExitOk;
}

}  // namespace

std::optional<std::string> ClosestWord(std::string_view word,
                                       const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = SIZE_MAX;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  if (!best || best_distance > 2 || 2 * best_distance >= word.size()) return std::nullopt;
  return best;
}

std::optional<std::string> UnknownCommandMessage(const CLI::App& root,
                                                 const std::vector<std::string>& args) {
  const CLI::App* cmd = &root;
  std::string path;  // the commands read so far, "jobs"
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") break;
    if (arg.starts_with("-")) {
      const CLI::Option* opt = arg.find('=') == std::string::npos ? FindOption(*cmd, arg) : nullptr;
      if (opt != nullptr && opt->get_items_expected_min() > 0) ++i;  // skip its value
      continue;
    }
    std::vector<std::string> names = SubcommandNames(*cmd);
    if (names.empty()) break;  // arguments of a leaf command from here
    if (const CLI::App* sub = FindSubcommand(*cmd, arg)) {
      cmd = sub;
      path += (path.empty() ? "" : " ") + arg;
      continue;
    }
    std::string prefix = path.empty() ? "" : path + " ";
    std::string message = "unknown command '" + prefix + arg + "'";
    if (auto closest = ClosestWord(arg, names)) {
      return message + "; did you mean '" + prefix + *closest + "'?";
    }
    return message + " (" + (path.empty() ? "commands" : path + " commands") + ": " +
           Join(names, ", ") + ")";
  }
  return std::nullopt;
}

std::string BashCompletion(const CLI::App& root) {
  const std::string fn = FunctionName(root);
  std::string out = "# bash completion for " + root.get_name() + ", generated by `" +
                    root.get_name() + " completion bash`.\n# Load it with: source <(" +
                    root.get_name() + " completion bash)\n";
  out += "declare -gA " + fn + "_words=(\n";
  for (const auto& [path, words] : CompletionTable(root)) {
    out += "  [" + ShellQuoted(path) + "]=" + ShellQuoted(Join(words, " ")) + "\n";
  }
  out += ")\n";
  out += fn + "() {\n";
  out += "  local cur=\"${COMP_WORDS[COMP_CWORD]}\" cmd=" + ShellQuoted(root.get_name()) + " i w\n";
  out += "  for ((i = 1; i < COMP_CWORD; i++)); do\n";
  out += "    w=\"${COMP_WORDS[i]}\"\n";
  out += "    [[ \"$w\" == -- ]] && return 0  # the command `work` runs, and its arguments\n";
  out += "    [[ -n \"${" + fn + "_words[\"$cmd $w\"]+set}\" ]] && cmd=\"$cmd $w\"\n";
  out += "  done\n";
  out += "  COMPREPLY=($(compgen -W \"${" + fn + "_words[$cmd]}\" -- \"$cur\"))\n";
  out += "}\n";
  out += "complete -o default -F " + fn + " " + root.get_name() + "\n";
  return out;
}

std::string ZshCompletion(const CLI::App& root) {
  const std::string fn = FunctionName(root);
  std::string out = "#compdef " + root.get_name() + "\n# zsh completion for " + root.get_name() +
                    ", generated by `" + root.get_name() +
                    " completion zsh`.\n# Load it with: source <(" + root.get_name() +
                    " completion zsh)  (after compinit), or save it as " + fn +
                    " in your $fpath.\n";
  out += "typeset -gA " + fn + "_words\n" + fn + "_words=(\n";
  for (const auto& [path, words] : CompletionTable(root)) {
    out += "  " + ShellQuoted(path) + " " + ShellQuoted(Join(words, " ")) + "\n";
  }
  out += ")\n";
  // `path` is zsh's $PATH array: the walk's variable is `cmd`.
  out += fn + "() {\n";
  out += "  local cmd=" + ShellQuoted(root.get_name()) + " w i\n";
  out += "  for ((i = 2; i < CURRENT; i++)); do\n";
  out += "    w=${words[i]}\n";
  out += "    [[ $w == -- ]] && { _files; return; }\n";
  out += "    (( ${+" + fn + "_words[$cmd $w]} )) && cmd=\"$cmd $w\"\n";
  out += "  done\n";
  out += "  compadd -- ${=" + fn + "_words[$cmd]}\n";
  out += "}\n";
  out += "if [[ \"${funcstack[1]}\" == " + fn + " ]]; then " + fn + " \"$@\"; else compdef " + fn +
         " " + root.get_name() + "; fi\n";
  return out;
}

void AddHelpAndCompletionCommands(CLI::App& root, CliContext& ctx) {
  auto* help = root.add_subcommand("help", "Show the help of redrive or of a command");
  auto words = std::make_shared<std::vector<std::string>>();
  help->add_option("COMMAND", *words, "A command, e.g. `jobs list`");
  help->footer("Examples:\n  redrive help\n  redrive help dlq retry");
  ctx.OnRun(help, [&root, words] { return RunHelp(root, *words); });

  auto* completion =
      root.add_subcommand("completion", "Print a shell completion script (bash or zsh)");
  auto shell = std::make_shared<std::string>();
  completion->add_option("SHELL", *shell, "bash or zsh")->required()->check(CLI::IsMember(kShells));
  completion->footer(
      "Examples:\n"
      "  source <(redrive completion bash)     # in ~/.bashrc\n"
      "  source <(redrive completion zsh)      # in ~/.zshrc, after compinit\n"
      "  redrive completion zsh > \"${fpath[1]}/_redrive\"");
  ctx.OnRun(completion, [&root, shell] {
    std::cout << (*shell == "bash" ? BashCompletion(root) : ZshCompletion(root));
    return kExitOk;
  });
}

}  // namespace redrive::cli
