#include "sdk/sse_frames.h"

#include <gtest/gtest.h>

#include <vector>

namespace redrive::sdk {
namespace {

TEST(SseFramesTest, FramesSplitAcrossReadsAndCommentsSkipped) {
  SseFrames frames;
  std::vector<std::string> got;
  auto collect = [&](std::string_view d) {
    got.emplace_back(d);
    return true;
  };
  EXPECT_TRUE(frames.Feed(": connected\n\ndata: {\"a\"", collect));
  EXPECT_TRUE(got.empty());
  EXPECT_TRUE(frames.Feed(":1}\n\n: ping\n\ndata: x\ndata: y\n\ndata:z\n\n", collect));
  EXPECT_EQ(got, (std::vector<std::string>{"{\"a\":1}", "x\ny", "z"}));
}

TEST(SseFramesTest, StopsWhenTheCallbackSaysSo) {
  SseFrames frames;
  int calls = 0;
  EXPECT_FALSE(frames.Feed("data: 1\n\ndata: 2\n\n", [&](std::string_view) {
    ++calls;
    return false;
  }));
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace redrive::sdk
