#include "wire/json_read.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace redrive::wire {
namespace {

std::optional<int64_t> IntOf(const char* json) {
  return ReadInt(boost::json::parse(json).as_object(), "n");
}

TEST(JsonReadTest, ReadIntTakesIntegersAndDoublesInsideInt64) {
  EXPECT_EQ(IntOf(R"({"n": 42})"), 42);
  EXPECT_EQ(IntOf(R"({"n": -9223372036854775808})"), INT64_MIN);
  EXPECT_EQ(IntOf(R"({"n": 9223372036854775807})"), INT64_MAX);
  EXPECT_EQ(IntOf(R"({"n": 2.9})"), 2);
  EXPECT_EQ(IntOf(R"({"n": -9.2e18})"), -9200000000000000000);
}

// Found by fuzz_json_decoders: a queue's default_timeout of 3.3e29 was
// converted to int64, which is undefined behaviour (UBSan aborted).
TEST(JsonReadTest, ReadIntRefusesNumbersOutsideInt64) {
  EXPECT_EQ(IntOf(R"({"n": 333333333333333333333333333301})"), std::nullopt);
  EXPECT_EQ(IntOf(R"({"n": 9.3e18})"), std::nullopt);
  EXPECT_EQ(IntOf(R"({"n": -9.3e18})"), std::nullopt);
  EXPECT_EQ(IntOf(R"({"n": 9223372036854775808})"), std::nullopt);  // a uint64
  EXPECT_EQ(IntOf(R"({"n": 18446744073709551615})"), std::nullopt);
  EXPECT_EQ(IntOf(R"({"n": "1"})"), std::nullopt);
  EXPECT_EQ(IntOf(R"({"m": 1})"), std::nullopt);
}

}  // namespace
}  // namespace redrive::wire
