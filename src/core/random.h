// Injected randomness: jitter and ids come from a Random, so tests can fix it.
#pragma once

#include <cstdint>
#include <mutex>

namespace redrive {

// Thread-safe source of 64 random bits.
class Random {
 public:
  virtual ~Random() = default;
  virtual uint64_t Next() = 0;
  // Uniform in [0, bound]; 0 when bound is 0.
  uint64_t UniformInclusive(uint64_t bound);
};

// xoshiro256** seeded from std::random_device; guarded by a mutex.
class SystemRandom final : public Random {
 public:
  SystemRandom();
  explicit SystemRandom(uint64_t seed);
  uint64_t Next() override;

 private:
  std::mutex mu_;
  uint64_t s_[4];
};

// Returns the same value every time (tests): jitter becomes predictable.
class FixedRandom final : public Random {
 public:
  explicit FixedRandom(uint64_t value) : value_(value) {}
  uint64_t Next() override { return value_; }

 private:
  uint64_t value_;
};

}  // namespace redrive
