// Interactive confirmation for destructive commands.
#pragma once

#include <string>

namespace redrive::cli {

// Prints `question` and asks the user to type `expected` on stdin. True only
// for exactly that answer (surrounding blanks ignored). REQUIRES: stdin is a
// terminal (callers refuse otherwise, so a script never hangs on a prompt).
bool Confirm(const std::string& question, const std::string& expected);

}  // namespace redrive::cli
