#include "core/limits.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "core/queue.h"

namespace redrive {
namespace {

using namespace std::string_view_literals;

TEST(QueueNameTest, AcceptsTheAllowedAlphabet) {
  for (std::string_view ok : {"a"sv, "Z"sv, "7"sv, "_"sv, "emails"sv, "Emails.v2"sv,
                              "billing-retry_queue.1"sv, "_private"sv, "a.-_"sv, "0-0"sv}) {
    EXPECT_TRUE(IsValidQueueName(ok)) << ok;
  }
}

TEST(QueueNameTest, LengthIsOneToOneHundred) {
  EXPECT_FALSE(IsValidQueueName(""));
  EXPECT_TRUE(IsValidQueueName(std::string(100, 'q')));
  EXPECT_FALSE(IsValidQueueName(std::string(101, 'q')));
  EXPECT_EQ(kMaxQueueNameLength, 100u);
}

TEST(QueueNameTest, MayNotStartWithDotOrDash) {
  EXPECT_FALSE(IsValidQueueName("."));
  EXPECT_FALSE(IsValidQueueName("-"));
  EXPECT_FALSE(IsValidQueueName(".hidden"));
  EXPECT_FALSE(IsValidQueueName("-flag"));
  EXPECT_TRUE(IsValidQueueName("a."));
  EXPECT_TRUE(IsValidQueueName("a-"));
}

TEST(QueueNameTest, RejectsOtherCharacters) {
  for (std::string_view bad : {"a b"sv, "a/b"sv, "a:b"sv, "a*"sv, "queue\n"sv, "caf\xC3\xA9"sv,
                               "a\0b"sv, "a+b"sv, "a@b"sv, "%41"sv, " a"sv}) {
    EXPECT_FALSE(IsValidQueueName(bad)) << bad;
  }
}

TEST(LimitsTest, ContractValues) {
  // shared/spec api.md, "Conventions": a change here is a contract change.
  EXPECT_EQ(kMinPriority, -100);
  EXPECT_EQ(kMaxPriority, 100);
  EXPECT_EQ(kMaxMaxRetries, 100);
  EXPECT_EQ(kMinTimeoutSeconds, 1);
  EXPECT_EQ(kMaxTimeoutSeconds, 86400);
  EXPECT_EQ(kMinLeaseSeconds, 5);
  EXPECT_EQ(kMaxLeaseSeconds, 3600);
  EXPECT_EQ(kMaxBackoffMs, 86'400'000);
  EXPECT_EQ(kMaxJitterMs, 60'000);
  EXPECT_EQ(kMaxIdempotencyKeyLength, 255u);
  EXPECT_EQ(kDefaultMaxRetries, 3);
  EXPECT_EQ(kDefaultCrashLimit, 3);
  EXPECT_EQ(kDefaultMaxSnoozes, 25);
  // The model's defaults (job.h, queue.h, installed without limits.h) agree.
  EXPECT_EQ(Job{}.crash_limit, kDefaultCrashLimit);
  EXPECT_EQ(Job{}.max_snoozes, kDefaultMaxSnoozes);
  EXPECT_EQ(QueueConfig{}.crash_limit, kDefaultCrashLimit);
  EXPECT_EQ(QueueConfig{}.max_snoozes, kDefaultMaxSnoozes);
  EXPECT_EQ(ServerLimits{}.max_payload_bytes, 1u << 20);
  EXPECT_EQ(ServerLimits{}.max_body_bytes, 16u << 20);
}

}  // namespace
}  // namespace redrive
