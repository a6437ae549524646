#include "core/autoredrive.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

using namespace std::chrono_literals;
using std::chrono::minutes;
using std::chrono::seconds;
using Phase = AutoredrivePhase;
using Kind = AutoredriveDecisionKind;

const Instant kT0 = InstantFromMicros(1'800'000'000'000'000);

AutoredrivePolicy Policy() {
  AutoredrivePolicy p;
  p.queue_name = "emails";
  p.enabled = true;
  p.fingerprint = "0123456789abcdef";
  p.cooldown = minutes(5);
  p.max_cooldown = minutes(30);
  p.canary_size = 3;
  p.rate_per_second = 10;
  p.max_revivals_per_job = 3;
  return p;
}

std::vector<std::string> Ids(int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back("j" + std::to_string(i));
  return out;
}

// A batch phase with `sent` of `target` jobs redriven, last chunk at kT0.
AutoredriveState Batch(Phase phase, int wave, int target, int sent) {
  AutoredriveState s;
  s.phase = phase;
  s.wave = wave;
  s.current_cooldown = minutes(5);
  s.batch_target = target;
  s.batch_job_ids = Ids(sent);
  s.batch_started_at = kT0;
  s.next_check_at = kT0;
  return s;
}

AutoredriveState Cooling(Phase phase, seconds cooldown, Instant next) {
  AutoredriveState s;
  s.phase = phase;
  s.current_cooldown = cooldown;
  s.next_check_at = next;
  return s;
}

struct Row {
  const char* name;
  bool enabled;
  AutoredriveState state;
  AutoredriveObservation seen;
  Micros after;  // now = kT0 + after
  // Expected:
  Phase phase;
  Kind kind;
  int redrive;
  int target;                  // state.batch_target
  seconds cooldown;            // state.current_cooldown
  std::optional<Micros> next;  // state.next_check_at - kT0
};

TEST(AutoredriveStepTest, EveryPhaseTransition) {
  const AutoredriveObservation none{};
  auto eligible = [](long long n) {
    AutoredriveObservation o;
    o.eligible = n;
    return o;
  };
  auto seen = [](int completed, int same, int other, int in_flight, long long eligible) {
    return AutoredriveObservation{completed, same, other, in_flight, eligible};
  };
  const Micros s0{0};
  const std::vector<Row> rows = {
      // Disabled.
      {"disabled idle stays idle", false, AutoredriveState{}, eligible(9), s0, Phase::kIdle,
       Kind::kNothing, 0, 0, seconds(0), std::nullopt},
      {"disabled mid-wave goes idle", false, Batch(Phase::kWave, 1, 12, 5), eligible(9), s0,
       Phase::kIdle, Kind::kDisabled, 0, 0, minutes(5), std::nullopt},
      {"disabled backed off goes idle", false, Cooling(Phase::kBackedOff, minutes(10), kT0),
       none, s0, Phase::kIdle, Kind::kDisabled, 0, 0, minutes(10), std::nullopt},
      // Idle, enabled: starts cooling.
      {"enabled idle starts cooling", true, AutoredriveState{}, eligible(9), s0, Phase::kCooling,
       Kind::kNothing, 0, 0, minutes(5), minutes(5)},
      // Cooling.
      {"cooling before its time waits", true, Cooling(Phase::kCooling, minutes(5), kT0 + 60s),
       eligible(9), s0, Phase::kCooling, Kind::kNothing, 0, 0, minutes(5), 60s},
      {"cooling done, nothing eligible: cools again", true,
       Cooling(Phase::kCooling, minutes(5), kT0), none, s0, Phase::kCooling, Kind::kNothing, 0, 0,
       minutes(5), minutes(5)},
      {"cooling done: canaries", true, Cooling(Phase::kCooling, minutes(5), kT0), eligible(100),
       s0, Phase::kCanary, Kind::kCanaryStarted, 3, 3, minutes(5), Micros(300'000)},
      {"cooling done, 2 eligible: 2 canaries", true, Cooling(Phase::kCooling, minutes(5), kT0),
       eligible(2), s0, Phase::kCanary, Kind::kCanaryStarted, 2, 2, minutes(5), Micros(200'000)},
      // Backed off.
      {"backed off before its time waits", true,
       Cooling(Phase::kBackedOff, minutes(10), kT0 + 60s), eligible(9), s0, Phase::kBackedOff,
       Kind::kNothing, 0, 0, minutes(10), 60s},
      {"backed off done: canaries again", true, Cooling(Phase::kBackedOff, minutes(10), kT0),
       eligible(9), s0, Phase::kCanary, Kind::kCanaryStarted, 3, 3, minutes(10),
       Micros(300'000)},
      {"backed off done, nothing eligible: cooling, keeps its cool-down", true,
       Cooling(Phase::kBackedOff, minutes(10), kT0), none, s0, Phase::kCooling, Kind::kNothing, 0,
       0, minutes(10), minutes(10)},
      // Canaries.
      {"canaries in flight wait", true, Batch(Phase::kCanary, 0, 3, 3), seen(1, 0, 0, 2, 50), 60s,
       Phase::kCanary, Kind::kNothing, 0, 3, minutes(5), s0},
      {"a canary died again: back off, doubled", true, Batch(Phase::kCanary, 0, 3, 3),
       seen(2, 1, 0, 0, 50), s0, Phase::kBackedOff, Kind::kBackedOff, 0, 0, minutes(10),
       minutes(10)},
      {"a canary died again while others run: back off at once", true,
       Batch(Phase::kCanary, 0, 3, 3), seen(0, 1, 0, 2, 50), s0, Phase::kBackedOff,
       Kind::kBackedOff, 0, 0, minutes(10), minutes(10)},
      {"canaries unfinished past the wait: back off", true, Batch(Phase::kCanary, 0, 3, 3),
       seen(1, 0, 0, 2, 50), minutes(10), Phase::kBackedOff, Kind::kBackedOff, 0, 0, minutes(10),
       minutes(20)},
      {"canaries completed: wave 1 of 12", true, Batch(Phase::kCanary, 0, 3, 3),
       seen(3, 0, 0, 0, 50), s0, Phase::kWave, Kind::kWaveStarted, 10, 12, minutes(5),
       Micros(1'000'000)},
      {"canaries completed, died otherwise too: wave 1", true, Batch(Phase::kCanary, 0, 3, 3),
       seen(2, 0, 1, 0, 5), s0, Phase::kWave, Kind::kWaveStarted, 5, 5, minutes(5),
       Micros(500'000)},
      {"canaries completed, nothing left: finished, cooling", true,
       Batch(Phase::kCanary, 0, 3, 3), seen(3, 0, 0, 0, 0), s0, Phase::kCooling, Kind::kFinished,
       0, 0, minutes(5), minutes(5)},
      {"canaries none selected: finished", true, Batch(Phase::kCanary, 0, 3, 0), none, s0,
       Phase::kCooling, Kind::kFinished, 0, 0, minutes(5), minutes(5)},
      // Waves.
      {"wave half sent, rate not due: waits", true,
       [] {
         auto s = Batch(Phase::kWave, 1, 12, 10);
         s.next_check_at = kT0 + 1s;
         return s;
       }(),
       seen(0, 0, 0, 10, 40), s0, Phase::kWave, Kind::kNothing, 0, 12, minutes(5), 1s},
      {"wave half sent, due: the rest", true, Batch(Phase::kWave, 1, 12, 10),
       seen(0, 0, 0, 10, 40), s0, Phase::kWave, Kind::kRedriveMore, 2, 12, minutes(5),
       Micros(200'000)},
      {"wave sent, in flight: waits", true, Batch(Phase::kWave, 1, 12, 12), seen(6, 1, 0, 5, 40),
       60s, Phase::kWave, Kind::kNothing, 0, 12, minutes(5), s0},
      {"wave of 12: 1 died again (<=10%) and settled: wave 2 of 48", true,
       Batch(Phase::kWave, 1, 12, 12), seen(11, 1, 0, 0, 100), s0, Phase::kWave,
       Kind::kWaveStarted, 10, 48, minutes(5), Micros(1'000'000)},
      {"wave of 12: 2 died again (>10%): back off", true, Batch(Phase::kWave, 1, 12, 12),
       seen(10, 2, 0, 0, 100), s0, Phase::kBackedOff, Kind::kBackedOff, 0, 0, minutes(10),
       minutes(10)},
      {"wave settled, nothing eligible: finished, cool-down reset", true,
       [] {
         auto s = Batch(Phase::kWave, 2, 48, 48);
         s.current_cooldown = minutes(20);
         return s;
       }(),
       seen(48, 0, 0, 0, 0), s0, Phase::kCooling, Kind::kFinished, 0, 0, minutes(5), minutes(5)},
      {"wave sent short, eligible ran out, settled: finished", true,
       Batch(Phase::kWave, 1, 12, 7), seen(7, 0, 0, 0, 0), s0, Phase::kCooling, Kind::kFinished,
       0, 0, minutes(5), minutes(5)},
      {"back off is capped at max_cooldown", true,
       [] {
         auto s = Batch(Phase::kCanary, 0, 3, 3);
         s.current_cooldown = minutes(20);
         return s;
       }(),
       seen(0, 3, 0, 0, 3), s0, Phase::kBackedOff, Kind::kBackedOff, 0, 0, minutes(30),
       minutes(30)},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    AutoredrivePolicy p = Policy();
    p.enabled = r.enabled;
    const AutoredriveStep step = StepAutoredrive(p, r.state, r.seen, kT0 + r.after);
    EXPECT_EQ(step.state.phase, r.phase);
    EXPECT_EQ(step.decision.kind, r.kind);
    EXPECT_EQ(step.decision.redrive, r.redrive);
    EXPECT_EQ(step.state.batch_target, r.target);
    EXPECT_EQ(step.state.current_cooldown, r.cooldown);
    if (r.next) {
      ASSERT_TRUE(step.state.next_check_at.has_value());
      EXPECT_EQ(*step.state.next_check_at - kT0, *r.next);
    } else {
      EXPECT_FALSE(step.state.next_check_at.has_value());
    }
    if (step.decision.notable()) {
      EXPECT_EQ(step.state.last_decision, r.kind);
      EXPECT_FALSE(step.state.last_reason.empty());
      EXPECT_EQ(step.state.last_decision_at, kT0 + r.after);
    } else {
      EXPECT_EQ(step.state.last_decision, r.state.last_decision);
    }
    if (r.kind == Kind::kBackedOff) {
      EXPECT_EQ(step.state.backoffs, r.state.backoffs + 1);
    }
  }
}

TEST(AutoredriveStepTest, ReasonsSayWhy) {
  const AutoredrivePolicy p = Policy();
  auto step = StepAutoredrive(p, Batch(Phase::kCanary, 0, 3, 3), {1, 2, 0, 0, 9}, kT0);
  EXPECT_EQ(step.state.last_reason,
            "2 of 3 canaries died again with the same error class; stopped, next try in 10m");
  step = StepAutoredrive(p, Batch(Phase::kCanary, 0, 3, 3), {0, 0, 0, 3, 9}, kT0 + minutes(10));
  EXPECT_EQ(step.state.last_reason,
            "3 of 3 canaries still unfinished after 10m; stopped, next try in 10m");
}

TEST(AutoredriveStepTest, WavesWidenFourfoldUpToTheCap) {
  AutoredrivePolicy p = Policy();
  EXPECT_EQ(AutoredriveWaveSize(p, 0), 3);
  EXPECT_EQ(AutoredriveWaveSize(p, 1), 12);
  EXPECT_EQ(AutoredriveWaveSize(p, 2), 48);
  EXPECT_EQ(AutoredriveWaveSize(p, 5), kMaxAutoredriveWave);
  EXPECT_EQ(AutoredriveWaveSize(p, 1000), kMaxAutoredriveWave);
}

TEST(AutoredriveStepTest, ARateBelowOneRedrivesOneJobPerInterval) {
  AutoredrivePolicy p = Policy();
  p.rate_per_second = 0.5;
  auto step = StepAutoredrive(p, Cooling(Phase::kCooling, minutes(5), kT0), {0, 0, 0, 0, 9}, kT0);
  EXPECT_EQ(step.decision.redrive, 1);
  EXPECT_EQ(*step.state.next_check_at, kT0 + 2s);
}

TEST(AutoredriveStepTest, InitialState) {
  AutoredrivePolicy p = Policy();
  AutoredriveState s = InitialAutoredriveState(p, kT0);
  EXPECT_EQ(s.phase, Phase::kCooling);
  EXPECT_EQ(s.next_check_at, kT0 + minutes(5));
  p.enabled = false;
  EXPECT_EQ(InitialAutoredriveState(p, kT0), AutoredriveState{});
}

TEST(AutoredrivePolicyTest, ValidationNamesTheField) {
  EXPECT_TRUE(ValidateAutoredrivePolicy(Policy()).ok());
  auto field_of = [](auto mutate) {
    AutoredrivePolicy p = Policy();
    mutate(p);
    Status st = ValidateAutoredrivePolicy(p);
    EXPECT_EQ(st.code(), ErrorCode::kValidation);
    return st.field();
  };
  EXPECT_EQ(field_of([](auto& p) { p.fingerprint = "nope"; }), "fingerprint");
  EXPECT_EQ(field_of([](auto& p) { p.fingerprint = ""; }), "fingerprint");
  EXPECT_EQ(field_of([](auto& p) { p.cooldown = seconds(0); }), "cooldown");
  EXPECT_EQ(field_of([](auto& p) { p.max_cooldown = seconds(10); }), "max_cooldown");
  EXPECT_EQ(field_of([](auto& p) { p.max_cooldown = std::chrono::hours(24 * 8); }), "max_cooldown");
  EXPECT_EQ(field_of([](auto& p) { p.canary_size = 0; }), "canary_size");
  EXPECT_EQ(field_of([](auto& p) { p.canary_size = 101; }), "canary_size");
  EXPECT_EQ(field_of([](auto& p) { p.rate_per_second = 0; }), "rate_per_second");
  EXPECT_EQ(field_of([](auto& p) { p.rate_per_second = 10'001; }), "rate_per_second");
  EXPECT_EQ(field_of([](auto& p) { p.max_revivals_per_job = 0; }), "max_revivals_per_job");
  EXPECT_EQ(field_of([](auto& p) { p.max_revivals_per_job = 101; }), "max_revivals_per_job");
}

TEST(AutoredrivePolicyTest, NamesRoundTrip) {
  for (Phase p : {Phase::kIdle, Phase::kCooling, Phase::kCanary, Phase::kWave, Phase::kBackedOff}) {
    EXPECT_EQ(ParseAutoredrivePhase(AutoredrivePhaseName(p)), p);
  }
  for (Kind k : {Kind::kNothing, Kind::kCanaryStarted, Kind::kWaveStarted, Kind::kRedriveMore,
                 Kind::kBackedOff, Kind::kFinished, Kind::kDisabled}) {
    EXPECT_EQ(ParseAutoredriveDecision(AutoredriveDecisionName(k)), k);
  }
  EXPECT_FALSE(ParseAutoredrivePhase("bogus"));
}

}  // namespace
}  // namespace redrive
