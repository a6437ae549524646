// What a redrive (a job retry, a DLQ retry, a release from quarantine) does
// to the job's retry budget: the operator's choice, written
// "reset" | "keep" | "extend:N". Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/job.h"

namespace redrive {

struct RetryBudget {
  enum class Kind {
    kReset,   // retry_count = 0: the job gets its whole max_retries again (the default)
    kKeep,    // retry_count unchanged: only the retries it had left
    kExtend,  // retry_count unchanged, max_retries += extend (capped at kMaxMaxRetries)
  };
  Kind kind = Kind::kReset;
  int extend = 0;  // kExtend only: 1..kMaxRetryExtend
  friend bool operator==(const RetryBudget&, const RetryBudget&) = default;
};

// "reset", "keep", "extend:N" with N in 1..kMaxRetryExtend (decimal digits
// only); nullopt for anything else.
std::optional<RetryBudget> ParseRetryBudget(std::string_view text);
// The text ParseRetryBudget reads back ("extend:5").
std::string RetryBudgetText(const RetryBudget& budget);

// Applies `budget` to a job being redriven (retry_count, max_retries).
void ApplyRetryBudget(const RetryBudget& budget, Job& job);

}  // namespace redrive
