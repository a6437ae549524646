#include "wire/autoredrive_json.h"

#include <cmath>

#include "wire/json_read.h"
#include "wire/time_json.h"

namespace redrive::wire {
namespace {

boost::json::value OptionalTime(const std::optional<Instant>& t) {
  if (!t) return nullptr;
  return TimeToJson(*t);
}

// A whole rate as an integer (10, not 1E1); others as doubles.
boost::json::value RateValue(double rate) {
  if (rate == std::floor(rate) && std::fabs(rate) < 9e15) return static_cast<int64_t>(rate);
  return rate;
}

boost::json::object StateToJson(const AutoredriveState& s) {
  return boost::json::object{
      {"phase", AutoredrivePhaseName(s.phase)},
      {"current_cooldown_seconds", s.current_cooldown.count()},
      {"next_check_at", OptionalTime(s.next_check_at)},
      {"wave", s.wave},
      {"batch_size", s.batch_target},
      {"batch_redriven", static_cast<int64_t>(s.batch_job_ids.size())},
      {"batch_started_at", OptionalTime(s.batch_started_at)},
      {"total_revived", s.total_revived},
      {"backoffs", s.backoffs},
      {"last_decision",
       s.last_decision ? boost::json::value(AutoredriveDecisionName(*s.last_decision)) : nullptr},
      {"last_reason",
       s.last_reason.empty() ? boost::json::value(nullptr) : boost::json::value(s.last_reason)},
      {"last_decision_at", OptionalTime(s.last_decision_at)},
  };
}

}  // namespace

boost::json::object AutoredriveToJson(const AutoredrivePolicy& p, const AutoredriveState& s,
                                      long long eligible) {
  return boost::json::object{
      {"queue_name", p.queue_name},
      {"enabled", p.enabled},
      {"fingerprint", p.fingerprint},
      {"dead_reason", p.reason ? boost::json::value(DeadReasonName(*p.reason)) : nullptr},
      {"cooldown_seconds", p.cooldown.count()},
      {"max_cooldown_seconds", p.max_cooldown.count()},
      {"canary_size", p.canary_size},
      {"rate_per_second", RateValue(p.rate_per_second)},
      {"max_revivals_per_job", p.max_revivals_per_job},
      {"created_at", TimeToJson(p.created_at)},
      {"updated_at", TimeToJson(p.updated_at)},
      {"updated_by", p.updated_by},
      {"eligible_count", eligible},
      {"state", StateToJson(s)},
  };
}

AutoredrivePolicy AutoredrivePolicyFromJson(const boost::json::object& o) {
  AutoredrivePolicy p;
  p.queue_name = ReadStringOr(o, "queue_name");
  p.enabled = ReadBoolOr(o, "enabled", false);
  p.fingerprint = ReadStringOr(o, "fingerprint");
  if (auto r = ReadString(o, "dead_reason")) p.reason = ParseDeadReason(*r);
  p.cooldown = std::chrono::seconds(ReadIntOr(o, "cooldown_seconds", p.cooldown.count()));
  p.max_cooldown =
      std::chrono::seconds(ReadIntOr(o, "max_cooldown_seconds", p.max_cooldown.count()));
  p.canary_size = static_cast<int>(ReadIntOr(o, "canary_size", p.canary_size));
  if (const boost::json::value* r = o.if_contains("rate_per_second"); r && r->is_number()) {
    p.rate_per_second = r->to_number<double>();
  }
  p.max_revivals_per_job =
      static_cast<int>(ReadIntOr(o, "max_revivals_per_job", p.max_revivals_per_job));
  p.created_at = ReadTime(o, "created_at").value_or(Instant{});
  p.updated_at = ReadTime(o, "updated_at").value_or(Instant{});
  p.updated_by = ReadStringOr(o, "updated_by");
  return p;
}

AutoredriveState AutoredriveStateFromJson(const boost::json::object& o) {
  AutoredriveState s;
  s.phase = ParseAutoredrivePhase(ReadStringOr(o, "phase")).value_or(AutoredrivePhase::kIdle);
  s.current_cooldown = std::chrono::seconds(ReadIntOr(o, "current_cooldown_seconds", 0));
  s.next_check_at = ReadTime(o, "next_check_at");
  s.wave = static_cast<int>(ReadIntOr(o, "wave", 0));
  s.batch_target = static_cast<int>(ReadIntOr(o, "batch_size", 0));
  s.batch_started_at = ReadTime(o, "batch_started_at");
  s.total_revived = ReadIntOr(o, "total_revived", 0);
  s.backoffs = ReadIntOr(o, "backoffs", 0);
  if (auto d = ReadString(o, "last_decision")) s.last_decision = ParseAutoredriveDecision(*d);
  s.last_reason = ReadStringOr(o, "last_reason");
  s.last_decision_at = ReadTime(o, "last_decision_at");
  return s;
}

}  // namespace redrive::wire
