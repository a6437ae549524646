#include "core/operation.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace redrive {
namespace {

constexpr std::array<std::pair<OperationAction, const char*>, 5> kActions{{
    {OperationAction::kRetry, "retry"},
    {OperationAction::kPurge, "purge"},
    {OperationAction::kCancel, "cancel"},
    {OperationAction::kRelease, "release"},
    {OperationAction::kMove, "move"},
}};
constexpr std::array<std::pair<OperationState, const char*>, 5> kStates{{
    {OperationState::kQueued, "queued"},
    {OperationState::kRunning, "running"},
    {OperationState::kCompleted, "completed"},
    {OperationState::kCancelled, "cancelled"},
    {OperationState::kFailed, "failed"},
}};

}  // namespace

const char* OperationActionName(OperationAction a) {
  for (const auto& [action, name] : kActions) {
    if (action == a) return name;
  }
  return "";
}

std::optional<OperationAction> ParseOperationAction(std::string_view s) {
  for (const auto& [action, name] : kActions) {
    if (s == name) return action;
  }
  return std::nullopt;
}

std::string OperationActionNames() {
  std::string out;
  for (const auto& [action, name] : kActions) out += (out.empty() ? "" : ", ") + std::string(name);
  return out;
}

const char* OperationStateName(OperationState s) {
  for (const auto& [state, name] : kStates) {
    if (state == s) return name;
  }
  return "";
}

std::optional<OperationState> ParseOperationState(std::string_view s) {
  for (const auto& [state, name] : kStates) {
    if (s == name) return state;
  }
  return std::nullopt;
}

bool IsFinished(OperationState s) {
  return s == OperationState::kCompleted || s == OperationState::kCancelled ||
         s == OperationState::kFailed;
}

std::vector<JobStatus> ActionStatuses(OperationAction a) {
  switch (a) {
    case OperationAction::kRetry:
    case OperationAction::kPurge:
      return {JobStatus::kDeadletter};
    case OperationAction::kCancel:
      return {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing};
    case OperationAction::kRelease:
      return {JobStatus::kQuarantined};
    case OperationAction::kMove:
      return {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kDeadletter,
              JobStatus::kQuarantined};
  }
  return {};
}

std::string StatusListText(const std::vector<JobStatus>& statuses) {
  std::string out;
  for (JobStatus st : statuses) out += (out.empty() ? "" : ",") + std::string(JobStatusName(st));
  return out;
}

std::vector<JobStatus> ParseStatusList(std::string_view text) {
  std::vector<JobStatus> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    if (std::optional<JobStatus> st = ParseJobStatus(text.substr(0, comma))) out.push_back(*st);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

long long OperationRemaining(const Operation& op) {
  return std::max<long long>(0, op.matched - op.done - op.failed);
}

std::optional<Instant> EstimatedFinish(const Operation& op, Instant now) {
  if (IsFinished(op.state)) return std::nullopt;
  const double remaining = static_cast<double>(OperationRemaining(op));
  double seconds = 0;
  if (op.rate_per_second && *op.rate_per_second > 0) {
    seconds = remaining / *op.rate_per_second;
  } else {
    const long long handled = op.done + op.failed;
    if (!op.started_at || handled == 0) return std::nullopt;
    const double elapsed = std::chrono::duration<double>(now - *op.started_at).count();
    seconds = elapsed / static_cast<double>(handled) * remaining;
  }
  if (!std::isfinite(seconds) || seconds > 1e9) seconds = 1e9;
  return now + Micros(static_cast<int64_t>(seconds * 1e6));
}

}  // namespace redrive
