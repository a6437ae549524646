// Finds the program `redrive work` would run, the way a shell does, so that
// a typo fails at start-up instead of on every job: a name with a '/' is
// that path; any other name is searched in $PATH (an empty entry is the
// current directory). The program must be a regular file we may execute.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace redrive::cli {

// The path that would run, or NOT_FOUND with the reason ("`sendmial` not found in
// PATH", "`./run.sh` is not executable", ...). `path_env` is $PATH's value;
// unset $PATH is the default the C library uses ("/bin:/usr/bin").
Result<std::string> FindExecutable(const std::string& command, std::string_view path_env);
// The same with this process's $PATH.
Result<std::string> FindExecutable(const std::string& command);

}  // namespace redrive::cli
