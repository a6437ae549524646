#include "core/retry_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

namespace redrive {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

const Instant kNow = InstantFromMicros(1'800'000'000'000'000);

// min(base · 2^(n−1), max) in ms, computed without overflow: doubling stops
// once the cap is reached (the cap is at most 86,400,000 ms by contract).
long long ReferenceMs(long long base, long long cap, int n) {
  long long v = base;
  for (int i = 1; i < n && v < cap; ++i) v *= 2;
  return std::min(v, cap);
}

struct PolicyCase {
  long long base_ms, max_ms;
};

class BackoffDelayTest : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(BackoffDelayTest, MatchesTheFormulaAndNeverOverflowsForN1To70) {
  const PolicyCase p = GetParam();
  const BackoffPolicy policy{milliseconds(p.base_ms), milliseconds(p.max_ms), 0ms};
  FixedRandom random(123);
  for (int n = 1; n <= 70; ++n) {
    SCOPED_TRACE(n);
    const Micros d = BackoffDelay(policy, n, random);
    EXPECT_EQ(d, milliseconds(ReferenceMs(p.base_ms, p.max_ms, n)));
    EXPECT_GE(d.count(), 0);
    EXPECT_LE(d, milliseconds(p.max_ms));
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, BackoffDelayTest,
                         ::testing::Values(PolicyCase{1000, 60000},    // the default
                                           PolicyCase{1, 86'400'000},  // grows for 27 steps
                                           PolicyCase{86'400'000, 86'400'000},
                                           PolicyCase{3, 1'000'000}, PolicyCase{0, 0},
                                           PolicyCase{0, 60000}, PolicyCase{0, 86'400'000}),
                         [](const ::testing::TestParamInfo<PolicyCase>& info) {
                           return "base" + std::to_string(info.param.base_ms) + "_max" +
                                  std::to_string(info.param.max_ms);
                         });

TEST(BackoffDelayTest, DefaultScheduleIsOneTwoFourSecondsCappedAtSixty) {
  const BackoffPolicy policy{1000ms, 60000ms, 0ms};
  FixedRandom random(0);
  const long long kWant[] = {1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000};
  for (int n = 1; n <= 9; ++n) {
    EXPECT_EQ(BackoffDelay(policy, n, random), milliseconds(kWant[n - 1])) << n;
  }
}

TEST(BackoffDelayTest, ZeroBaseGivesOnlyJitterForEveryN) {
  // "a zero base retries at once": min(0 · 2^(n−1), max) = 0 for every n,
  // including n > 40 (max_retries goes up to 100).
  const BackoffPolicy policy{0ms, 60000ms, 500ms};
  for (int n = 1; n <= 100; ++n) {
    FixedRandom random(123'456);
    EXPECT_EQ(BackoffDelay(policy, n, random), Micros(123'456)) << n;
  }
}

TEST(BackoffDelayTest, JitterIsUniformZeroToBoundInclusive) {
  const BackoffPolicy policy{1000ms, 60000ms, 500ms};
  const auto delay = [&](uint64_t draw) {
    FixedRandom random(draw);
    return BackoffDelay(policy, 1, random);
  };
  EXPECT_EQ(delay(0), 1000ms);
  EXPECT_EQ(delay(1), 1000ms + Micros(1));  // microsecond resolution
  EXPECT_EQ(delay(500'000), 1500ms);        // the bound itself
  EXPECT_EQ(delay(500'001), 1000ms);        // wraps: never above the bound
  EXPECT_EQ(delay(1'000'001), 1500ms);
  SystemRandom random(42);
  for (int i = 0; i < 2000; ++i) {
    const Micros d = BackoffDelay(policy, 3, random);
    ASSERT_GE(d, 4000ms);
    ASSERT_LE(d, 4500ms);
  }
}

TEST(BackoffDelayTest, JitterIsAddedAfterTheCap) {
  const BackoffPolicy policy{1000ms, 60000ms, 500ms};
  FixedRandom random(500'000);
  EXPECT_EQ(BackoffDelay(policy, 70, random), 60500ms);
}

TEST(BackoffDelayTest, MaximalPolicyDoesNotOverflow) {
  const BackoffPolicy policy{86'400'000ms, 86'400'000ms, 60'000ms};
  FixedRandom random(60'000'000);
  for (int n = 1; n <= 100; ++n) {
    EXPECT_EQ(BackoffDelay(policy, n, random), 86'460'000ms) << n;
  }
}

// --- DecideFailure --------------------------------------------------------

Job FailingJob(int retry_count, int max_retries) {
  Job j;
  j.status = JobStatus::kProcessing;
  j.retry_count = retry_count;
  j.max_retries = max_retries;
  j.backoff = {1000ms, 60000ms, 500ms};
  return j;
}

TEST(DecideFailureTest, RetriesWithBackoffOfTheNextRetryCount) {
  FixedRandom random(100'000);
  const FailureDecision d =
      DecideFailure(FailingJob(2, 3), kNow, false, std::nullopt, false, random);
  EXPECT_TRUE(d.will_retry);
  EXPECT_EQ(d.next_run, kNow + 4100ms);  // delay(3) = 4 s + 100 ms
  EXPECT_EQ(d.dead_reason, DeadReason::kNone);
}

TEST(DecideFailureTest, AtOrPastMaxRetriesDeadLetters) {
  FixedRandom random(0);
  for (int retry_count : {3, 4}) {  // 4: max_retries lowered after the fact
    FailureDecision d =
        DecideFailure(FailingJob(retry_count, 3), kNow, false, std::nullopt, false, random);
    EXPECT_FALSE(d.will_retry);
    EXPECT_EQ(d.dead_reason, DeadReason::kMaxRetriesExceeded);
    d = DecideFailure(FailingJob(retry_count, 3), kNow, false, std::nullopt, true, random);
    EXPECT_FALSE(d.will_retry);
    EXPECT_EQ(d.dead_reason, DeadReason::kLeaseExpired);
  }
}

TEST(DecideFailureTest, LeaseLossWithRetriesLeftStillRetries) {
  FixedRandom random(0);
  const FailureDecision d =
      DecideFailure(FailingJob(0, 3), kNow, false, std::nullopt, true, random);
  EXPECT_TRUE(d.will_retry);
  EXPECT_EQ(d.next_run, kNow + 1s);
}

TEST(DecideFailureTest, NoRetryWinsOverEverything) {
  FixedRandom random(0);
  FailureDecision d = DecideFailure(FailingJob(0, 3), kNow, true, 5000ms, false, random);
  EXPECT_FALSE(d.will_retry);
  EXPECT_EQ(d.dead_reason, DeadReason::kNonRetryable);
  d = DecideFailure(FailingJob(3, 3), kNow, true, std::nullopt, true, random);
  EXPECT_EQ(d.dead_reason, DeadReason::kNonRetryable);
}

TEST(DecideFailureTest, RetryAfterReplacesDelayAndJitter) {
  FixedRandom random(499'999);
  const FailureDecision d = DecideFailure(FailingJob(6, 10), kNow, false, 1500ms, false, random);
  EXPECT_TRUE(d.will_retry);
  EXPECT_EQ(d.next_run, kNow + 1500ms);
}

TEST(DecideFailureTest, RetryDueAtOrAfterTheDeadlineIsExpired) {
  FixedRandom random(0);
  Job j = FailingJob(0, 3);
  j.expires_at = kNow + 1s;  // the retry would be due exactly then
  FailureDecision d = DecideFailure(j, kNow, false, std::nullopt, false, random);
  EXPECT_FALSE(d.will_retry);
  EXPECT_EQ(d.dead_reason, DeadReason::kExpired);
  j.expires_at = kNow + 1s + Micros(1);
  d = DecideFailure(j, kNow, false, std::nullopt, false, random);
  EXPECT_TRUE(d.will_retry);
  EXPECT_EQ(d.next_run, kNow + 1s);
  // An already passed deadline with a zero delay: still expired.
  j.expires_at = kNow;
  d = DecideFailure(j, kNow, false, 0ms, false, random);
  EXPECT_EQ(d.dead_reason, DeadReason::kExpired);
}

TEST(DecideFailureTest, MaxRetriesIsCheckedBeforeTheDeadline) {
  FixedRandom random(0);
  Job j = FailingJob(3, 3);
  j.expires_at = kNow - 1s;
  const FailureDecision d = DecideFailure(j, kNow, false, std::nullopt, false, random);
  EXPECT_EQ(d.dead_reason, DeadReason::kMaxRetriesExceeded);
}

}  // namespace
}  // namespace redrive
