// The clock check on a manual clock: the database's clock is compared with
// the middle of the round trip, only skew the round trip cannot explain
// counts, crossing the bound both ways is reported, and a store on this
// machine (no clock of its own) is never checked again.
#include "engine/services/clock_check.h"

#include <gtest/gtest.h>

namespace redrive::engine {
namespace {

using namespace std::chrono_literals;

class ClockCheckTest : public ::testing::Test {
 protected:
  ClockCheckTest() { clock_.Set(InstantFromMicros(1'000'000'000'000)); }

  // A database whose clock is `offset` from ours and whose answer takes `rtt`;
  // it reads its clock in the middle of the round trip.
  ClockCheck::DatabaseNow Database(Micros offset, Micros rtt) {
    return [this, offset, rtt]() -> Result<std::optional<Instant>> {
      ++calls_;
      clock_.Advance(rtt / 2);
      const Instant read = clock_.Now() + offset;
      clock_.Advance(rtt - rtt / 2);
      return std::optional<Instant>(read);
    };
  }

  ManualClock clock_;
  ClockSkewState state_;
  int calls_ = 0;
};

TEST_F(ClockCheckTest, ADatabaseAheadBeyondTheBoundIsReportedAndExported) {
  ClockCheck check(clock_, Database(10s, 2ms), state_, 2s, 30s);
  EXPECT_FALSE(state_.Get().has_value());
  EXPECT_EQ(state_.RenderGauge(), "");
  ServiceRun run = check.RunOnce(clock_.Now());
  ASSERT_TRUE(state_.Get().has_value());
  EXPECT_EQ(state_.Get()->skew, Micros(9999ms));  // 10 s less half the round trip
  EXPECT_TRUE(state_.Get()->beyond);
  EXPECT_EQ(state_.Get()->bound, Micros(2s));
  EXPECT_NE(state_.RenderGauge().find("redrive_clock_skew_seconds 9.999000\n"), std::string::npos)
      << state_.RenderGauge();
  ASSERT_TRUE(run.next_run.has_value());
  EXPECT_EQ(*run.next_run - (clock_.Now() - 2ms), 30s);
}

TEST_F(ClockCheckTest, ANodeAheadOfTheDatabaseIsNegative) {
  ClockCheck check(clock_, Database(-3s, 0ms), state_, 2s, 30s);
  check.RunOnce(clock_.Now());
  EXPECT_EQ(state_.Get()->skew, Micros(-3s));
  EXPECT_TRUE(state_.Get()->beyond);
}

TEST_F(ClockCheckTest, OnlySkewTheRoundTripCannotExplainCounts) {
  // The database read its clock at the very start of a 100 ms round trip:
  // 50 ms before the middle, which the round trip explains.
  ClockCheck at_start(
      clock_,
      [this]() -> Result<std::optional<Instant>> {
        const Instant read = clock_.Now();
        clock_.Advance(100ms);
        return std::optional<Instant>(read);
      },
      state_, 2s, 30s);
  at_start.RunOnce(clock_.Now());
  EXPECT_EQ(state_.Get()->skew, Micros::zero());
  // 3 s ahead with a 400 ms round trip: at least 2.8 s for sure.
  ClockCheck slow(clock_, Database(3s, 400ms), state_, 2s, 30s);
  slow.RunOnce(clock_.Now());
  EXPECT_EQ(state_.Get()->skew, Micros(2800ms));
}

TEST_F(ClockCheckTest, WithinTheBoundIsOkAndComingBackIsSeen) {
  Micros offset = 5s;
  ClockCheck check(
      clock_,
      [&]() -> Result<std::optional<Instant>> {
        return std::optional<Instant>(clock_.Now() + offset);
      },
      state_, 2s, 30s);
  check.RunOnce(clock_.Now());
  EXPECT_TRUE(state_.Get()->beyond);
  offset = 1500ms;
  check.RunOnce(clock_.Now());
  EXPECT_FALSE(state_.Get()->beyond);
  EXPECT_EQ(state_.Get()->skew, Micros(1500ms));
}

TEST_F(ClockCheckTest, AZeroBoundMeasuresButNeverReportsBeyond) {
  ClockCheck check(clock_, Database(1h, 1ms), state_, Micros::zero(), 30s);
  check.RunOnce(clock_.Now());
  EXPECT_FALSE(state_.Get()->beyond);
  EXPECT_GT(state_.Get()->skew, Micros(59min));
}

TEST_F(ClockCheckTest, AnUnreachableDatabaseChangesNothingAndIsTriedAgain) {
  ClockCheck check(clock_, Database(10s, 0ms), state_, 2s, 30s);
  check.RunOnce(clock_.Now());
  ClockCheck down(
      clock_, []() -> Result<std::optional<Instant>> { return Status::Unavailable("down"); },
      state_, 2s, 30s);
  ServiceRun run = down.RunOnce(clock_.Now());
  EXPECT_TRUE(run.next_run.has_value());
  EXPECT_EQ(state_.Get()->skew, Micros(10s));
}

TEST_F(ClockCheckTest, AStoreWithoutAClockIsAskedOnceAndNeverReported) {
  ClockCheck check(
      clock_,
      [this]() -> Result<std::optional<Instant>> {
        ++calls_;
        return std::optional<Instant>();
      },
      state_, 2s, 30s);
  EXPECT_FALSE(check.RunOnce(clock_.Now()).next_run.has_value());
  EXPECT_FALSE(check.RunOnce(clock_.Now()).next_run.has_value());
  EXPECT_EQ(calls_, 1);
  EXPECT_FALSE(state_.Get().has_value());
}

}  // namespace
}  // namespace redrive::engine
