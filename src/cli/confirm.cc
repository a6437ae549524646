#include "cli/confirm.h"

#include <iostream>

namespace redrive::cli {

bool Confirm(const std::string& question, const std::string& expected) {
  // The prompt goes to stderr so that stdout stays clean for --json.
  std::cerr << question << "\nType " << expected << " to confirm: " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  auto first = answer.find_first_not_of(" \t\r");
  auto last = answer.find_last_not_of(" \t\r");
  if (first == std::string::npos) return false;
  return answer.substr(first, last - first + 1) == expected;
}

}  // namespace redrive::cli
