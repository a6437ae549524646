// Auto-redrive, "the redrive that heals itself": a per-queue, opt-in policy
// that revives the queue's dead jobs of one error class (a fingerprint,
// core/error_fingerprint.h) on its own, carefully. After a cool-down it
// redrives a small canary batch; when the canaries complete it redrives the
// rest in waves four times wider each, at a bounded rate; when canaries (or
// too many of a wave) die again with the same class it stops, doubles its
// cool-down (up to a ceiling) and says why. A job is revived automatically
// at most max_revivals_per_job times (the store counts them: job_auto_revivals).
//
// Pure: the policy, its validation, the state and ONE step function from
// (policy, state, observations, now) to (state, decision). The engine's
// `autoredrive` duty (engine/services/autoredrive_runner.h) observes the
// store, calls Step and carries the decision out.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/job.h"
#include "core/status.h"

namespace redrive {

// Bounds and defaults of a policy (validated by ValidateAutoredrivePolicy).
inline constexpr std::chrono::seconds kDefaultAutoredriveCooldown{5 * 60};
inline constexpr std::chrono::seconds kMinAutoredriveCooldown{1};
inline constexpr std::chrono::seconds kDefaultAutoredriveMaxCooldown{6 * 3600};
inline constexpr std::chrono::seconds kMaxAutoredriveMaxCooldown{7 * 24 * 3600};
inline constexpr int kDefaultCanarySize = 3;
inline constexpr int kMaxCanarySize = 100;
inline constexpr double kDefaultAutoredriveRate = 10;
inline constexpr double kMaxAutoredriveRate = 10'000;
inline constexpr int kDefaultMaxRevivalsPerJob = 3;
inline constexpr int kMaxMaxRevivalsPerJob = 100;
// Each wave is this many times the previous one (the first: the canaries').
inline constexpr int kAutoredriveWaveGrowth = 4;
// A wave never holds more jobs than this (its ids are kept in the state).
inline constexpr int kMaxAutoredriveWave = 1000;
// At most this many jobs are redriven per step (one transaction).
inline constexpr int kMaxAutoredriveChunk = 500;
// A batch still unfinished after max(cooldown, this) counts as failed.
inline constexpr std::chrono::minutes kMinAutoredriveSettleWait{10};
// A wave (not the canaries: none may die) passes when at most this share of
// it died again with the same class.
inline constexpr double kAutoredriveWaveDeathShare = 0.10;
// The actor of its audit entries and the source of its redrives in job history.
inline constexpr char kAutoredriveActor[] = "autoredrive";

struct AutoredrivePolicy {
  std::string queue_name;
  bool enabled = false;
  std::string fingerprint;           // the error class (required)
  std::optional<DeadReason> reason;  // only dead jobs of this reason, if set
  std::chrono::seconds cooldown = kDefaultAutoredriveCooldown;
  std::chrono::seconds max_cooldown = kDefaultAutoredriveMaxCooldown;
  int canary_size = kDefaultCanarySize;
  double rate_per_second = kDefaultAutoredriveRate;
  int max_revivals_per_job = kDefaultMaxRevivalsPerJob;
  Instant created_at{};
  Instant updated_at{};
  std::string updated_by;  // the operator, as the audit log names them

  bool operator==(const AutoredrivePolicy&) const = default;
};

// VALIDATION naming the field ("canary_size", ...) when out of bounds.
Status ValidateAutoredrivePolicy(const AutoredrivePolicy& p);

// idle: disabled (or never started). cooling: waiting out the cool-down
// before the next canaries. canary / wave: redriving a batch, then waiting
// for its outcome. backed_off: cooling after a failure, with a longer
// cool-down.
enum class AutoredrivePhase { kIdle, kCooling, kCanary, kWave, kBackedOff };
const char* AutoredrivePhaseName(AutoredrivePhase p);  // "idle", ...
std::optional<AutoredrivePhase> ParseAutoredrivePhase(std::string_view s);

// What the last step that changed the phase decided.
enum class AutoredriveDecisionKind {
  kNothing,        // wait
  kCanaryStarted,  // the canary batch is being redriven
  kWaveStarted,    // a wider wave is being redriven
  kRedriveMore,    // more jobs of the current batch (the rate's pace)
  kBackedOff,      // stopped: the class still fails; cool-down doubled
  kFinished,       // every eligible job was redriven and the class recovered
  kDisabled,       // switched off: back to idle
};
const char* AutoredriveDecisionName(AutoredriveDecisionKind k);  // "canary_started", ...
std::optional<AutoredriveDecisionKind> ParseAutoredriveDecision(std::string_view s);

// The policy's live state (written by the duty only).
struct AutoredriveState {
  AutoredrivePhase phase = AutoredrivePhase::kIdle;
  std::chrono::seconds current_cooldown{0};
  std::optional<Instant> next_check_at;  // cooling: when to start; batch: next chunk
  // The current canary/wave: the jobs redriven so far, how many it should
  // hold, when it started, and its number (0: the canaries).
  std::vector<std::string> batch_job_ids;
  int batch_target = 0;
  int wave = 0;
  std::optional<Instant> batch_started_at;
  long long total_revived = 0;  // jobs redriven by this policy, ever
  long long backoffs = 0;       // times it stopped and backed off
  std::optional<AutoredriveDecisionKind> last_decision;
  std::string last_reason;  // why, in words
  std::optional<Instant> last_decision_at;

  bool operator==(const AutoredriveState&) const = default;
};

// What the engine saw of the current batch and the queue.
struct AutoredriveObservation {
  int completed = 0;       // of the batch: completed
  int died_same = 0;       // dead again with the policy's fingerprint
  int died_other = 0;      // dead with another class, cancelled, quarantined or gone
  int in_flight = 0;       // pending, scheduled, processing or blocked
  long long eligible = 0;  // dead jobs of the class still below the revival ceiling
};

struct AutoredriveDecision {
  AutoredriveDecisionKind kind = AutoredriveDecisionKind::kNothing;
  int redrive = 0;     // redrive this many eligible jobs now (append them to the batch)
  std::string reason;  // why (empty for kNothing and kRedriveMore)
  // The phase changed: an audit entry and a dlq.autoredrive webhook.
  bool notable() const {
    return kind != AutoredriveDecisionKind::kNothing &&
           kind != AutoredriveDecisionKind::kRedriveMore;
  }
};

struct AutoredriveStep {
  AutoredriveState state;
  AutoredriveDecision decision;
};

// The state a new (or re-enabled, or re-targeted) policy starts in at `now`:
// cooling for its cool-down when enabled, idle otherwise.
AutoredriveState InitialAutoredriveState(const AutoredrivePolicy& p, Instant now);

// The one step. REQUIRES: p is valid. The engine then redrives at most
// decision.redrive eligible jobs and appends their ids to
// state.batch_job_ids (fewer when fewer could be selected).
AutoredriveStep StepAutoredrive(const AutoredrivePolicy& p, const AutoredriveState& s,
                                const AutoredriveObservation& o, Instant now);

// The size of wave `n` (0: the canaries) of `p`, before the eligible cap.
int AutoredriveWaveSize(const AutoredrivePolicy& p, int n);

}  // namespace redrive
