// Time for all lease, backoff and deadline logic. Nothing in the core, store
// or engine reads the system clock directly: it asks a Clock, so tests drive
// time with a ManualClock and are exact and instant.
#pragma once

#include <atomic>
#include <chrono>

namespace redrive {

// A UTC instant with microsecond resolution; stored as integer microseconds.
using Micros = std::chrono::microseconds;
using Instant = std::chrono::time_point<std::chrono::system_clock, Micros>;

inline Instant InstantFromMicros(int64_t us) { return Instant(Micros(us)); }
inline int64_t ToMicros(Instant t) { return t.time_since_epoch().count(); }

// Thread-safe source of "now".
class Clock {
 public:
  virtual ~Clock() = default;
  virtual Instant Now() const = 0;
};

class SystemClock final : public Clock {
 public:
  Instant Now() const override {
    return std::chrono::time_point_cast<Micros>(std::chrono::system_clock::now());
  }
};

// A clock that moves only when told to. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(Instant start = InstantFromMicros(1'800'000'000'000'000))
      : now_us_(ToMicros(start)) {}
  Instant Now() const override { return InstantFromMicros(now_us_.load()); }
  void Set(Instant t) { now_us_.store(ToMicros(t)); }
  void Advance(Micros d) { now_us_.fetch_add(d.count()); }

 private:
  std::atomic<int64_t> now_us_;
};

}  // namespace redrive
