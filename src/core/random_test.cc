#include "core/random.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

namespace redrive {
namespace {

// Returns the given values in turn (then repeats the last).
class SequenceRandom final : public Random {
 public:
  explicit SequenceRandom(std::vector<uint64_t> values) : values_(std::move(values)) {}
  uint64_t Next() override { return values_[i_ < values_.size() - 1 ? i_++ : i_]; }

 private:
  std::vector<uint64_t> values_;
  size_t i_ = 0;
};

TEST(UniformInclusiveTest, ZeroBoundIsAlwaysZero) {
  FixedRandom r(12345);
  EXPECT_EQ(r.UniformInclusive(0), 0u);
  FixedRandom max(UINT64_MAX);
  EXPECT_EQ(max.UniformInclusive(0), 0u);
}

TEST(UniformInclusiveTest, BothEndsAreReachable) {
  SequenceRandom r({0, 10, 11, 21, 22});
  EXPECT_EQ(r.UniformInclusive(10), 0u);
  EXPECT_EQ(r.UniformInclusive(10), 10u);  // the bound itself
  EXPECT_EQ(r.UniformInclusive(10), 0u);   // 11 wraps
  EXPECT_EQ(r.UniformInclusive(10), 10u);
  EXPECT_EQ(r.UniformInclusive(10), 0u);
}

TEST(UniformInclusiveTest, FullRangeBoundPassesBitsThrough) {
  FixedRandom r(UINT64_MAX);
  EXPECT_EQ(r.UniformInclusive(UINT64_MAX), UINT64_MAX);
  FixedRandom r2(0x0123456789abcdefULL);
  EXPECT_EQ(r2.UniformInclusive(UINT64_MAX), 0x0123456789abcdefULL);
  // Just below full range: no overflow in bound + 1.
  EXPECT_EQ(r.UniformInclusive(UINT64_MAX - 1), 0u);
}

TEST(UniformInclusiveTest, SystemRandomStaysInBoundsAndCoversThem) {
  SystemRandom r(2024);
  std::set<uint64_t> seen;
  for (int i = 0; i < 5000; ++i) {
    const uint64_t v = r.UniformInclusive(7);
    ASSERT_LE(v, 7u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 8u);  // 0..7 all drawn
  for (int i = 0; i < 5000; ++i) ASSERT_LE(r.UniformInclusive(500'000), 500'000u);
}

TEST(SystemRandomTest, SeededSequencesAreReproducibleAndDistinct) {
  SystemRandom a(1), b(1), c(2);
  std::vector<uint64_t> va, vb, vc;
  for (int i = 0; i < 16; ++i) {
    va.push_back(a.Next());
    vb.push_back(b.Next());
    vc.push_back(c.Next());
  }
  EXPECT_EQ(va, vb);
  EXPECT_NE(va, vc);
  EXPECT_EQ(std::set<uint64_t>(va.begin(), va.end()).size(), va.size());
}

TEST(SystemRandomTest, UnseededInstancesDiffer) {
  SystemRandom a, b;
  // 128 bits colliding would mean the seeds are not random.
  EXPECT_FALSE(a.Next() == b.Next() && a.Next() == b.Next());
}

}  // namespace
}  // namespace redrive
