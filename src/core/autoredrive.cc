#include "core/autoredrive.h"

#include <algorithm>
#include <cmath>

#include "core/error_fingerprint.h"
#include "core/time_format.h"

namespace redrive {
namespace {

constexpr AutoredrivePhase kPhases[] = {AutoredrivePhase::kIdle, AutoredrivePhase::kCooling,
                                        AutoredrivePhase::kCanary, AutoredrivePhase::kWave,
                                        AutoredrivePhase::kBackedOff};
constexpr AutoredriveDecisionKind kDecisions[] = {
    AutoredriveDecisionKind::kNothing,     AutoredriveDecisionKind::kCanaryStarted,
    AutoredriveDecisionKind::kWaveStarted, AutoredriveDecisionKind::kRedriveMore,
    AutoredriveDecisionKind::kBackedOff,   AutoredriveDecisionKind::kFinished,
    AutoredriveDecisionKind::kDisabled};

Instant After(Instant now, Micros d) { return AddClamped(now, d); }

// How long `jobs` take at the policy's rate.
Micros PaceOf(const AutoredrivePolicy& p, int jobs) {
  return Micros(static_cast<int64_t>(1e6 * jobs / p.rate_per_second));
}

// The jobs of the batch to redrive now: the rest of the batch, at most a
// second's worth at the rate (at least one), one transaction's worth, and
// what is eligible.
int Chunk(const AutoredrivePolicy& p, const AutoredriveState& s, long long eligible) {
  const int rest = s.batch_target - static_cast<int>(s.batch_job_ids.size());
  const int per_second = static_cast<int>(std::max(1.0, std::floor(p.rate_per_second)));
  const long long n = std::min<long long>({rest, per_second, kMaxAutoredriveChunk, eligible});
  return static_cast<int>(std::max<long long>(0, n));
}

void Decide(AutoredriveStep& out, AutoredriveDecisionKind kind, std::string reason, Instant now) {
  out.decision.kind = kind;
  out.decision.reason = reason;
  if (!out.decision.notable()) return;
  out.state.last_decision = kind;
  out.state.last_reason = std::move(reason);
  out.state.last_decision_at = now;
}

void ClearBatch(AutoredriveState& s) {
  s.batch_job_ids.clear();
  s.batch_target = 0;
  s.wave = 0;
  s.batch_started_at.reset();
}

void Cool(AutoredriveState& s, AutoredrivePhase phase, std::chrono::seconds cooldown, Instant now) {
  ClearBatch(s);
  s.phase = phase;
  s.current_cooldown = cooldown;
  s.next_check_at = After(now, cooldown);
}

// Starts batch `wave` (0: the canaries) and redrives its first chunk.
void StartBatch(const AutoredrivePolicy& p, AutoredriveStep& out, int wave, long long eligible,
                Instant now) {
  AutoredriveState& s = out.state;
  ClearBatch(s);
  s.phase = wave == 0 ? AutoredrivePhase::kCanary : AutoredrivePhase::kWave;
  s.wave = wave;
  s.batch_target = static_cast<int>(std::min<long long>(AutoredriveWaveSize(p, wave), eligible));
  s.batch_started_at = now;
  const int n = Chunk(p, s, eligible);
  out.decision.redrive = n;
  s.next_check_at = After(now, PaceOf(p, n));
  std::string what = wave == 0 ? "redriving " + std::to_string(s.batch_target) + " canaries"
                               : "wave " + std::to_string(wave) + ": redriving " +
                                     std::to_string(s.batch_target) + " jobs";
  Decide(
      out,
      wave == 0 ? AutoredriveDecisionKind::kCanaryStarted : AutoredriveDecisionKind::kWaveStarted,
      what + " of " + std::to_string(eligible) + " eligible", now);
}

void BackOff(const AutoredrivePolicy& p, AutoredriveStep& out, std::string why, Instant now) {
  const std::chrono::seconds base = std::max(out.state.current_cooldown, p.cooldown);
  const std::chrono::seconds doubled = std::min(base * 2, p.max_cooldown);
  Cool(out.state, AutoredrivePhase::kBackedOff, doubled, now);
  out.state.backoffs++;
  Decide(out, AutoredriveDecisionKind::kBackedOff,
         why + "; stopped, next try in " + FormatDuration(doubled), now);
}

// The batch (canaries or a wave) in flight: its failures first, then more
// of it at the rate, then its outcome once every job of it settled.
void StepBatch(const AutoredrivePolicy& p, AutoredriveStep& out, const AutoredriveObservation& o,
               Instant now) {
  AutoredriveState& s = out.state;
  const bool canary = s.phase == AutoredrivePhase::kCanary;
  const int sent = static_cast<int>(s.batch_job_ids.size());
  const int allowed = canary ? 0 : static_cast<int>(kAutoredriveWaveDeathShare * sent);
  if (o.died_same > allowed) {
    const std::string of = std::to_string(o.died_same) + " of " + std::to_string(sent);
    BackOff(p, out,
            canary ? of + " canaries died again with the same error class"
                   : of + " jobs of wave " + std::to_string(s.wave) +
                         " died again with the same error class (more than 10%)",
            now);
    return;
  }
  if (sent < s.batch_target && o.eligible > 0) {
    if (s.next_check_at && now < *s.next_check_at) return;
    const int n = Chunk(p, s, o.eligible);
    out.decision.kind = AutoredriveDecisionKind::kRedriveMore;
    out.decision.redrive = n;
    s.next_check_at = After(now, PaceOf(p, n));
    return;
  }
  if (sent == 0) {  // nothing could be selected: the jobs went meanwhile
    Cool(s, AutoredrivePhase::kCooling, p.cooldown, now);
    Decide(out, AutoredriveDecisionKind::kFinished, "no eligible jobs left", now);
    return;
  }
  if (o.in_flight > 0) {
    const Micros wait = std::max<Micros>(p.cooldown, kMinAutoredriveSettleWait);
    const Instant sent_at = s.next_check_at.value_or(s.batch_started_at.value_or(now));
    if (now < After(sent_at, wait)) return;
    BackOff(p, out,
            std::to_string(o.in_flight) + " of " + std::to_string(sent) + " " +
                (canary ? "canaries" : "jobs of wave " + std::to_string(s.wave)) +
                " still unfinished after " + FormatDuration(wait),
            now);
    return;
  }
  if (o.eligible > 0) {
    StartBatch(p, out, s.wave + 1, o.eligible, now);
    return;
  }
  const long long revived = s.total_revived;
  Cool(s, AutoredrivePhase::kCooling, p.cooldown, now);
  Decide(
      out, AutoredriveDecisionKind::kFinished,
      "no eligible jobs left; the class recovered (" + std::to_string(revived) + " revived in all)",
      now);
}

}  // namespace

Status ValidateAutoredrivePolicy(const AutoredrivePolicy& p) {
  if (p.queue_name.empty()) return Status::Validation("queue_name", "queue_name is required");
  if (!IsErrorFingerprint(p.fingerprint)) {
    return Status::Validation("fingerprint",
                              "fingerprint must be an error class's fingerprint (" +
                                  std::to_string(kFingerprintChars) +
                                  " hex digits, as GET /api/v1/jobs/dlq/summary lists them)");
  }
  if (p.cooldown < kMinAutoredriveCooldown || p.cooldown > kMaxAutoredriveMaxCooldown) {
    return Status::Validation("cooldown", "cooldown must be between 1s and 7d");
  }
  if (p.max_cooldown < p.cooldown || p.max_cooldown > kMaxAutoredriveMaxCooldown) {
    return Status::Validation("max_cooldown",
                              "max_cooldown must be at least cooldown and at most 7d");
  }
  if (p.canary_size < 1 || p.canary_size > kMaxCanarySize) {
    return Status::Validation(
        "canary_size", "canary_size must be between 1 and " + std::to_string(kMaxCanarySize));
  }
  if (!std::isfinite(p.rate_per_second) || p.rate_per_second < 0.01 ||
      p.rate_per_second > kMaxAutoredriveRate) {
    return Status::Validation("rate_per_second", "rate_per_second must be between 0.01 and 10000");
  }
  if (p.max_revivals_per_job < 1 || p.max_revivals_per_job > kMaxMaxRevivalsPerJob) {
    return Status::Validation(
        "max_revivals_per_job",
        "max_revivals_per_job must be between 1 and " + std::to_string(kMaxMaxRevivalsPerJob));
  }
  return Status::Ok();
}

const char* AutoredrivePhaseName(AutoredrivePhase p) {
  switch (p) {
    case AutoredrivePhase::kIdle:
      return "idle";
    case AutoredrivePhase::kCooling:
      return "cooling";
    case AutoredrivePhase::kCanary:
      return "canary";
    case AutoredrivePhase::kWave:
      return "wave";
    case AutoredrivePhase::kBackedOff:
      return "backed_off";
  }
  return "idle";
}

std::optional<AutoredrivePhase> ParseAutoredrivePhase(std::string_view s) {
  for (AutoredrivePhase p : kPhases) {
    if (s == AutoredrivePhaseName(p)) return p;
  }
  return std::nullopt;
}

const char* AutoredriveDecisionName(AutoredriveDecisionKind k) {
  switch (k) {
    case AutoredriveDecisionKind::kNothing:
      return "nothing";
    case AutoredriveDecisionKind::kCanaryStarted:
      return "canary_started";
    case AutoredriveDecisionKind::kWaveStarted:
      return "wave_started";
    case AutoredriveDecisionKind::kRedriveMore:
      return "redrive_more";
    case AutoredriveDecisionKind::kBackedOff:
      return "backed_off";
    case AutoredriveDecisionKind::kFinished:
      return "finished";
    case AutoredriveDecisionKind::kDisabled:
      return "disabled";
  }
  return "nothing";
}

std::optional<AutoredriveDecisionKind> ParseAutoredriveDecision(std::string_view s) {
  for (AutoredriveDecisionKind k : kDecisions) {
    if (s == AutoredriveDecisionName(k)) return k;
  }
  return std::nullopt;
}

int AutoredriveWaveSize(const AutoredrivePolicy& p, int n) {
  long long size = p.canary_size;
  for (int i = 0; i < n && size < kMaxAutoredriveWave; ++i) size *= kAutoredriveWaveGrowth;
  return static_cast<int>(std::min<long long>(size, kMaxAutoredriveWave));
}

AutoredriveState InitialAutoredriveState(const AutoredrivePolicy& p, Instant now) {
  AutoredriveState s;
  if (!p.enabled) return s;
  Cool(s, AutoredrivePhase::kCooling, p.cooldown, now);
  return s;
}

AutoredriveStep StepAutoredrive(const AutoredrivePolicy& p, const AutoredriveState& s,
                                const AutoredriveObservation& o, Instant now) {
  AutoredriveStep out{s, {}};
  if (!p.enabled) {
    if (s.phase == AutoredrivePhase::kIdle) return out;
    ClearBatch(out.state);
    out.state.phase = AutoredrivePhase::kIdle;
    out.state.next_check_at.reset();
    Decide(out, AutoredriveDecisionKind::kDisabled, "switched off", now);
    return out;
  }
  switch (s.phase) {
    case AutoredrivePhase::kIdle:
      Cool(out.state, AutoredrivePhase::kCooling, p.cooldown, now);
      return out;
    case AutoredrivePhase::kCooling:
    case AutoredrivePhase::kBackedOff:
      if (s.next_check_at && now < *s.next_check_at) return out;
      if (o.eligible == 0) {
        Cool(out.state, AutoredrivePhase::kCooling, std::max(s.current_cooldown, p.cooldown), now);
        return out;
      }
      StartBatch(p, out, 0, o.eligible, now);
      return out;
    case AutoredrivePhase::kCanary:
    case AutoredrivePhase::kWave:
      StepBatch(p, out, o, now);
      return out;
  }
  return out;
}

}  // namespace redrive
