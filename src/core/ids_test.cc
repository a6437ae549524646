#include "core/ids.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/ids_test_util.h"

namespace redrive {
namespace {

using ::testing::MatchesRegex;

// 2026-11-29T12:00:00.123Z = 1,795,953,600,123 ms since the epoch.
const Instant kT = InstantFromMicros(1'795'953'600'123'456);

std::string Hex48(long long ms) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%012llx", ms);
  return buf;
}

TEST(NewUuidV7Test, CanonicalLowerCaseFormat) {
  SystemRandom random(7);
  for (int i = 0; i < 100; ++i) {
    const std::string id = NewUuidV7(kT, random);
    EXPECT_THAT(id, MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                                 "[0-9a-f]{12}"));
    EXPECT_TRUE(IsUuid(id)) << id;
  }
}

TEST(NewUuidV7Test, LeadsWith48BitUnixMilliseconds) {
  FixedRandom random(0);
  const std::string id = NewUuidV7(kT, random);
  const std::string ms = Hex48(1'795'953'600'123);  // microseconds are dropped
  EXPECT_EQ(id.substr(0, 8) + id.substr(9, 4), ms);
}

TEST(NewUuidV7Test, VersionAndVariantBitsWithExtremeRandomness) {
  // All-zero and all-one random bits: only version 7 and variant 10 remain.
  FixedRandom zeros(0);
  FixedRandom ones(UINT64_MAX);
  const std::string ms = Hex48(1'795'953'600'123);
  const std::string prefix = ms.substr(0, 8) + "-" + ms.substr(8, 4) + "-";
  EXPECT_EQ(NewUuidV7(kT, zeros), prefix + "7000-8000-000000000000");
  EXPECT_EQ(NewUuidV7(kT, ones), prefix + "7fff-bfff-ffffffffffff");
}

TEST(NewUuidV7Test, EpochAndLargeTimes) {
  FixedRandom zeros(0);
  EXPECT_EQ(NewUuidV7(InstantFromMicros(0), zeros), "00000000-0000-7000-8000-000000000000");
  EXPECT_EQ(NewUuidV7(InstantFromMicros(0xFFFFFFFFFFFFLL * 1000), zeros),
            "ffffffff-ffff-7000-8000-000000000000");
}

TEST(UuidV7Test, EachFieldInItsPlaceAndCutToItsWidth) {
  EXPECT_EQ(UuidV7(0x0123456789AB, 0xCDE, 0x0123456789ABCDEF),
            "01234567-89ab-7cde-8123-456789abcdef");
  // Bits past each field's width are dropped, never spilled into the next.
  EXPECT_EQ(UuidV7(UINT64_MAX, UINT32_MAX, UINT64_MAX), "ffffffff-ffff-7fff-bfff-ffffffffffff");
  EXPECT_EQ(UuidV7(uint64_t{1} << 48, 1u << 12, uint64_t{1} << 62),
            "00000000-0000-7000-8000-000000000000");
}

TEST(NewUuidV7Test, OrderedByTimeAcrossMilliseconds) {
  // Even when the earlier id draws all-one random bits and the later all-zero.
  FixedRandom ones(UINT64_MAX);
  FixedRandom zeros(0);
  Instant t = kT;
  std::string prev = NewUuidV7(t, ones);
  for (int i = 0; i < 1000; ++i) {
    t += std::chrono::milliseconds(1 + i % 7);
    const std::string next = NewUuidV7(t, zeros);
    ASSERT_LT(prev, next) << i;
    prev = NewUuidV7(t, ones);
  }
}

TEST(NewUuidV7Test, RandomBitsMakeIdsUnique) {
  SystemRandom random(99);
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(NewUuidV7(kT, random));  // same millisecond
  EXPECT_EQ(seen.size(), 10000u);
}

TEST(UuidV7SequenceTest, IdsOfOneMillisecondAscendInTheOrderTheyAreMade) {
  // NewUuidV7's random bits order ids of one millisecond at random; the
  // sequence's never, whatever the random bits (all ones here).
  SystemRandom system(5);
  std::vector<std::string> random_order;
  for (int i = 0; i < 100; ++i) random_order.push_back(NewUuidV7(kT, system));
  EXPECT_FALSE(std::is_sorted(random_order.begin(), random_order.end()));

  FixedRandom ones(UINT64_MAX);
  UuidV7Sequence seq;
  std::string prev = seq.Next(kT, ones);
  EXPECT_EQ(prev.substr(0, 8) + prev.substr(9, 4), Hex48(1'795'953'600'123));
  for (int i = 0; i < 10000; ++i) {  // past the 12-bit counter, several times
    const std::string next = seq.Next(kT, ones);
    ASSERT_LT(prev, next) << i;
    ASSERT_THAT(
        next, MatchesRegex("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"));
    prev = next;
  }
  // 10,001 ids from a counter starting at 2047 fill the rest of the first
  // millisecond (2,049 ids) and the next (4,096), and go on in a third.
  EXPECT_EQ(prev.substr(0, 8) + prev.substr(9, 4), Hex48(1'795'953'600'125));
}

TEST(UuidV7SequenceTest, ANewMillisecondRestartsTheCounterAndAnOldOneDoesNotGoBack) {
  FixedRandom zeros(0);
  UuidV7Sequence seq;
  const std::string a = seq.Next(kT, zeros);
  const std::string b = seq.Next(kT, zeros);
  EXPECT_EQ(a.substr(14, 4), "7000");  // the counter starts at the random bits' low 11
  EXPECT_EQ(b.substr(14, 4), "7001");
  const std::string c = seq.Next(kT + std::chrono::milliseconds(5), zeros);
  EXPECT_EQ(c.substr(0, 8) + c.substr(9, 4), Hex48(1'795'953'600'128));
  EXPECT_EQ(c.substr(14, 4), "7000");
  // The clock went back: the ids still ascend, in the later millisecond.
  const std::string d = seq.Next(kT, zeros);
  EXPECT_LT(c, d);
  EXPECT_EQ(d.substr(0, 8) + d.substr(9, 4), Hex48(1'795'953'600'128));
}

TEST(IsUuidTest, AcceptsCanonicalForms) {
  EXPECT_TRUE(IsUuid("01935f1c-8a00-7abc-8def-0123456789ab"));
  EXPECT_TRUE(IsUuid("01935F1C-8A00-7ABC-8DEF-0123456789AB"));
  EXPECT_TRUE(IsUuid("00000000-0000-0000-0000-000000000000"));
}

TEST(IsUuidTest, RejectsAnythingElse) {
  EXPECT_FALSE(IsUuid(""));
  EXPECT_FALSE(IsUuid("01935f1c-8a00-7abc-8def-0123456789a"));    // short
  EXPECT_FALSE(IsUuid("01935f1c-8a00-7abc-8def-0123456789abc"));  // long
  EXPECT_FALSE(IsUuid("01935f1c8a007abc8def0123456789ab"));       // no dashes
  EXPECT_FALSE(IsUuid("01935f1c-8a007-abc-8def-0123456789ab"));   // dash misplaced
  EXPECT_FALSE(IsUuid("01935f1g-8a00-7abc-8def-0123456789ab"));   // not hex
  EXPECT_FALSE(IsUuid("{1935f1c-8a00-7abc-8def-0123456789ab}"));
  EXPECT_FALSE(IsUuid("01935f1c_8a00_7abc_8def_0123456789ab"));
  EXPECT_FALSE(IsUuid(" 1935f1c-8a00-7abc-8def-0123456789ab"));
  EXPECT_FALSE(IsUuid("01935f1c-8a00-7abc-8def-0123456789a-"));
}

TEST(UuidBytesTest, CanonicalTextRoundTripsThroughItsBytes) {
  SystemRandom random(11);
  for (int i = 0; i < 100; ++i) {
    const std::string id = NewUuidV7(kT, random);
    const std::optional<UuidBytes> bytes = ParseUuid(id);
    ASSERT_TRUE(bytes.has_value()) << id;
    EXPECT_EQ(FormatUuid(*bytes), id);
  }
  const std::optional<UuidBytes> known = ParseUuid("00112233-4455-6677-8899-aabbccddeeff");
  ASSERT_TRUE(known.has_value());
  EXPECT_EQ(*known, (UuidBytes{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa,
                               0xbb, 0xcc, 0xdd, 0xee, 0xff}));
}

// Any other text is not a UUID here: it would not read back as written.
TEST(UuidBytesTest, RefusesTextThatIsNotCanonical) {
  for (const char* text :
       {"", "h1", "00112233-4455-6677-8899-AABBCCDDEEFF", "0011223344556677-8899-aabbccddeeff-",
        "00112233-4455-6677-8899-aabbccddeef", "00112233-4455-6677-8899-aabbccddeefg",
        "00112233_4455-6677-8899-aabbccddeeff", "00112233-4455-6677-8899-aabbccddeeff0"}) {
    EXPECT_FALSE(ParseUuid(text).has_value()) << text;
  }
}

}  // namespace
}  // namespace redrive
