#include "core/operation_codec.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(OperationCodecTest, JobIdsRoundTrip) {
  const std::vector<std::string> ids = {"01935f1c-8a00-7000-8000-000000000001", "b", "c d"};
  EXPECT_EQ(JoinIds(ids), "01935f1c-8a00-7000-8000-000000000001\nb\nc d");
  EXPECT_EQ(SplitIds(JoinIds(ids)), ids);
  EXPECT_EQ(JoinIds({}), "");
  EXPECT_TRUE(SplitIds("").empty());
  EXPECT_EQ(SplitIds("one"), std::vector<std::string>{"one"});
}

TEST(OperationCodecTest, ARateReadsBackExactly) {
  for (double rate : {1.0, 0.1, 1e-4, 1e6, 2.0 / 3.0, 123.456}) {
    EXPECT_EQ(ParseRateText(RateText(rate)), rate) << RateText(rate);
  }
  EXPECT_EQ(RateText(0.5), "0.5");
  EXPECT_EQ(RateText(100), "100");
  EXPECT_EQ(ParseRateText("nope"), 0);
}

}  // namespace
}  // namespace redrive
