#include "core/schedule.h"

namespace redrive {
namespace {

// One table per enum: value and wire name.
template <typename E>
struct NamedValue {
  E value;
  const char* name;
};

constexpr NamedValue<MissedRunPolicy> kMissedRunPolicies[] = {
    {MissedRunPolicy::kSkip, "skip"},
    {MissedRunPolicy::kRunOnce, "run_once"},
    {MissedRunPolicy::kBackfill, "backfill"}};
constexpr NamedValue<OverlapPolicy> kOverlapPolicies[] = {
    {OverlapPolicy::kAllow, "allow"},
    {OverlapPolicy::kSkipIfRunning, "skip_if_running"},
    {OverlapPolicy::kCancelPrevious, "cancel_previous"}};
constexpr NamedValue<ScheduleRunKind> kRunKinds[] = {{ScheduleRunKind::kScheduled, "scheduled"},
                                                     {ScheduleRunKind::kManual, "manual"},
                                                     {ScheduleRunKind::kBackfill, "backfill"}};

template <typename E, std::size_t N>
const char* NameOf(const NamedValue<E> (&table)[N], E value) {
  for (const auto& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "";
}

template <typename E, std::size_t N>
std::optional<E> ValueOf(const NamedValue<E> (&table)[N], std::string_view name) {
  for (const auto& entry : table) {
    if (name == entry.name) return entry.value;
  }
  return std::nullopt;
}

}  // namespace

const char* MissedRunPolicyName(MissedRunPolicy p) { return NameOf(kMissedRunPolicies, p); }
std::optional<MissedRunPolicy> ParseMissedRunPolicy(std::string_view s) {
  return ValueOf(kMissedRunPolicies, s);
}
const char* OverlapPolicyName(OverlapPolicy p) { return NameOf(kOverlapPolicies, p); }
std::optional<OverlapPolicy> ParseOverlapPolicy(std::string_view s) {
  return ValueOf(kOverlapPolicies, s);
}
const char* ScheduleRunKindName(ScheduleRunKind k) { return NameOf(kRunKinds, k); }
std::optional<ScheduleRunKind> ParseScheduleRunKind(std::string_view s) {
  return ValueOf(kRunKinds, s);
}

}  // namespace redrive
