#include "cli/command_lookup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace redrive::cli {
namespace {

// Empty when `path` is a regular file we may execute, else why not.
std::string WhyNotExecutable(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return strerror(errno);
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (!S_ISREG(st.st_mode)) return "is not a regular file";
  if (access(path.c_str(), X_OK) != 0) return "is not executable (chmod +x?)";
  return "";
}

}  // namespace

Result<std::string> FindExecutable(const std::string& command, std::string_view path_env) {
  if (command.empty()) return Status::NotFound("the command is empty");
  if (command.find('/') != std::string::npos) {
    std::string why = WhyNotExecutable(command);
    if (!why.empty()) return Status::NotFound("`" + command + "`: " + why);
    return command;
  }
  std::string first_refusal;  // a match we may not run, if no later entry runs
  size_t start = 0;
  while (start <= path_env.size()) {
    size_t colon = path_env.find(':', start);
    if (colon == std::string_view::npos) colon = path_env.size();
    std::string dir(path_env.substr(start, colon - start));
    std::string candidate = (dir.empty() ? "." : dir) + "/" + command;
    std::string why = WhyNotExecutable(candidate);
    if (why.empty()) return candidate;
    if (first_refusal.empty() && access(candidate.c_str(), F_OK) == 0) {
      first_refusal = "`" + candidate + "` " + why;
    }
    start = colon + 1;
  }
  if (!first_refusal.empty()) return Status::NotFound(first_refusal);
  return Status::NotFound("`" + command + "` not found in PATH");
}

Result<std::string> FindExecutable(const std::string& command) {
  const char* path = std::getenv("PATH");
  return FindExecutable(command, path != nullptr ? path : "/bin:/usr/bin");
}

}  // namespace redrive::cli
