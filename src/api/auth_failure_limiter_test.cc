#include "api/auth_failure_limiter.h"

#include <gtest/gtest.h>

namespace redrive::api {
namespace {

using namespace std::chrono_literals;

AuthFailureLimits Limits(int max_failures, std::chrono::seconds window, size_t max_clients = 100) {
  AuthFailureLimits limits;
  limits.max_failures = max_failures;
  limits.window = window;
  limits.max_clients = max_clients;
  return limits;
}

TEST(AuthFailureLimiterTest, BlocksAtTheLimitUntilTheWindowEnds) {
  ManualClock clock;
  AuthFailureLimiter limiter(clock, Limits(3, 60s));
  for (int i = 0; i < 2; ++i) limiter.RecordFailure("10.0.0.1");
  EXPECT_EQ(limiter.RetryAfter("10.0.0.1"), std::nullopt);  // 2 of 3
  clock.Advance(10s);
  limiter.RecordFailure("10.0.0.1");
  EXPECT_EQ(limiter.RetryAfter("10.0.0.1"), 50s);  // the window began with the first failure
  EXPECT_EQ(limiter.RetryAfter("10.0.0.2"), std::nullopt);  // others are not affected
  clock.Advance(49s + 500ms);
  EXPECT_EQ(limiter.RetryAfter("10.0.0.1"), 1s);  // rounded up
  clock.Advance(500ms);
  EXPECT_EQ(limiter.RetryAfter("10.0.0.1"), std::nullopt);
  EXPECT_EQ(limiter.size(), 0u);  // the expired entry is gone
  // A fresh window: one failure is not enough.
  limiter.RecordFailure("10.0.0.1");
  EXPECT_EQ(limiter.RetryAfter("10.0.0.1"), std::nullopt);
}

TEST(AuthFailureLimiterTest, AFailureAfterTheWindowStartsANewOne) {
  ManualClock clock;
  AuthFailureLimiter limiter(clock, Limits(2, 60s));
  limiter.RecordFailure("a");
  clock.Advance(61s);
  limiter.RecordFailure("a");  // the first one has expired
  EXPECT_EQ(limiter.RetryAfter("a"), std::nullopt);
  limiter.RecordFailure("a");
  EXPECT_EQ(limiter.RetryAfter("a"), 60s);
}

TEST(AuthFailureLimiterTest, TableIsBoundedAndForgetsTheStalestAddress) {
  ManualClock clock;
  AuthFailureLimiter limiter(clock, Limits(1, 60s, /*max_clients=*/3));
  for (const char* a : {"1.1.1.1", "2.2.2.2", "3.3.3.3"}) limiter.RecordFailure(a);
  limiter.RecordFailure("1.1.1.1");  // now the most recent
  limiter.RecordFailure("4.4.4.4");  // evicts 2.2.2.2, the stalest
  EXPECT_EQ(limiter.size(), 3u);
  EXPECT_EQ(limiter.RetryAfter("2.2.2.2"), std::nullopt);
  EXPECT_NE(limiter.RetryAfter("1.1.1.1"), std::nullopt);
  EXPECT_NE(limiter.RetryAfter("3.3.3.3"), std::nullopt);
  EXPECT_NE(limiter.RetryAfter("4.4.4.4"), std::nullopt);
  for (int i = 0; i < 1000; ++i)
    limiter.RecordFailure("10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256));
  EXPECT_EQ(limiter.size(), 3u);
}

TEST(AuthFailureLimiterTest, ZeroTurnsItOff) {
  ManualClock clock;
  AuthFailureLimiter limiter(clock, Limits(0, 60s));
  for (int i = 0; i < 100; ++i) limiter.RecordFailure("a");
  EXPECT_EQ(limiter.RetryAfter("a"), std::nullopt);
  EXPECT_EQ(limiter.size(), 0u);
}

TEST(AuthFailureLimiterTest, Ipv6CountsPerSlash64) {
  ManualClock clock;
  AuthFailureLimiter limiter(clock, Limits(2, 60s));
  limiter.RecordFailure("2001:db8:1:2::1");
  limiter.RecordFailure("2001:db8:1:2:ffff::9");
  EXPECT_NE(limiter.RetryAfter("2001:db8:1:2::77"), std::nullopt);
  EXPECT_EQ(limiter.RetryAfter("2001:db8:1:3::1"), std::nullopt);
}

TEST(ClientKeyTest, NormalizesAddresses) {
  EXPECT_EQ(ClientKey("192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(ClientKey("::ffff:192.0.2.7"), "192.0.2.7");
  EXPECT_EQ(ClientKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  EXPECT_EQ(ClientKey("::1"), "0:0:0:0::/64");
  EXPECT_EQ(ClientKey(""), "");
}

}  // namespace
}  // namespace redrive::api
