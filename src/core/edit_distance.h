// Levenshtein distance, for "did you mean" suggestions (the CLI's unknown
// commands, the DLQ's closest error classes).
#pragma once

#include <cstddef>
#include <string_view>

namespace redrive {

// Insertions, deletions and substitutions of bytes turning `a` into `b`.
// O(|a|·|b|) time: callers bound their inputs.
size_t EditDistance(std::string_view a, std::string_view b);

}  // namespace redrive
