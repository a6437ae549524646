#include "engine/services/clock_check.h"

#include <spdlog/spdlog.h>

#include <cstdlib>

namespace redrive::engine {

std::optional<ClockSkewReport> ClockSkewState::Get() const {
  if (!measured_.load()) return std::nullopt;
  ClockSkewReport r;
  r.skew = Micros(skew_us_.load());
  r.bound = Micros(bound_us_.load());
  r.beyond = r.bound > Micros::zero() && std::llabs(r.skew.count()) > r.bound.count();
  return r;
}

std::string ClockSkewState::RenderGauge() const {
  std::optional<ClockSkewReport> r = Get();
  if (!r) return "";
  return "# HELP redrive_clock_skew_seconds The database's clock minus this node's, last "
         "measured.\n# TYPE redrive_clock_skew_seconds gauge\nredrive_clock_skew_seconds " +
         std::to_string(static_cast<double>(r->skew.count()) / 1e6) + "\n";
}

ServiceRun ClockCheck::RunOnce(Instant now) {
  ServiceRun run;
  if (local_) return run;
  run.next_run = now + interval_;
  const Instant sent = clock_.Now();
  Result<std::optional<Instant>> db = database_now_();
  const Instant received = clock_.Now();
  if (!db.ok()) return run;  // the store is down: /health/ready says so already
  if (!db->has_value()) {
    local_ = true;
    run.next_run.reset();
    return run;
  }
  // The database read its clock somewhere within the round trip: take the
  // middle, and count only what the round trip cannot explain.
  const Micros rtt = std::chrono::duration_cast<Micros>(received - sent);
  const Instant middle = sent + rtt / 2;
  Micros skew = std::chrono::duration_cast<Micros>(**db - middle);
  const Micros slack = rtt / 2;
  if (skew > slack) {
    skew -= slack;
  } else if (skew < -slack) {
    skew += slack;
  } else {
    skew = Micros::zero();
  }
  state_.Set(skew, bound_);
  const bool beyond = state_.Get()->beyond;
  if (beyond != was_beyond_) {
    const double ms = static_cast<double>(skew.count()) / 1000.0;
    if (beyond) {
      spdlog::error(
          "clock skew: the database's clock is {:.0f} ms {} this node's (bound {} ms): leases "
          "and retry times this node writes are judged by other nodes' clocks; fix time sync",
          std::abs(ms), ms > 0 ? "ahead of" : "behind", bound_.count() / 1000);
    } else {
      spdlog::info("clock skew: back within {} ms of the database ({:.0f} ms)",
                   bound_.count() / 1000, ms);
    }
    was_beyond_ = beyond;
  }
  return run;
}

}  // namespace redrive::engine
