#include "core/random.h"

#include <random>

namespace redrive {

uint64_t Random::UniformInclusive(uint64_t bound) {
  if (bound == 0) return 0;
  if (bound == UINT64_MAX) return Next();
  // Modulo bias is negligible for the small bounds used (jitter in ms).
  return Next() % (bound + 1);
}

namespace {
uint64_t SplitMix64(uint64_t& x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

SystemRandom::SystemRandom() {
  std::random_device rd;
  uint64_t seed = (uint64_t{rd()} << 32) ^ rd();
  for (auto& s : s_) s = SplitMix64(seed);
}

SystemRandom::SystemRandom(uint64_t seed) {
  for (auto& s : s_) s = SplitMix64(seed);
}

uint64_t SystemRandom::Next() {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

}  // namespace redrive
