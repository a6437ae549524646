#include "core/retry_budget.h"

#include <algorithm>

#include "core/limits.h"

namespace redrive {

std::optional<RetryBudget> ParseRetryBudget(std::string_view text) {
  if (text == "reset") return RetryBudget{};
  if (text == "keep") return RetryBudget{RetryBudget::Kind::kKeep, 0};
  constexpr std::string_view kExtend = "extend:";
  if (!text.starts_with(kExtend)) return std::nullopt;
  std::string_view digits = text.substr(kExtend.size());
  // At most 3 digits: no overflow, and "0005" is not a budget anyone writes.
  if (digits.empty() || digits.size() > 3 || digits.front() == '0') return std::nullopt;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n < 1 || n > kMaxRetryExtend) return std::nullopt;
  return RetryBudget{RetryBudget::Kind::kExtend, n};
}

std::string RetryBudgetText(const RetryBudget& budget) {
  switch (budget.kind) {
    case RetryBudget::Kind::kReset:
      return "reset";
    case RetryBudget::Kind::kKeep:
      return "keep";
    case RetryBudget::Kind::kExtend:
      return "extend:" + std::to_string(budget.extend);
  }
  return "reset";
}

void ApplyRetryBudget(const RetryBudget& budget, Job& job) {
  switch (budget.kind) {
    case RetryBudget::Kind::kReset:
      job.retry_count = 0;
      return;
    case RetryBudget::Kind::kKeep:
      return;
    case RetryBudget::Kind::kExtend:
      job.max_retries = std::min(job.max_retries + budget.extend, kMaxMaxRetries);
      return;
  }
}

}  // namespace redrive
