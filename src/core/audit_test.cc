#include "core/audit.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(AuditTest, HeaderLinesRoundTrip) {
  const std::vector<std::pair<std::string, std::string>> headers = {
      {"Retry-After", "5"}, {"Location", "/api/v1/jobs/x"}, {"Empty", ""}};
  EXPECT_EQ(DecodeHeaderLines(EncodeHeaderLines(headers)), headers);
  EXPECT_TRUE(DecodeHeaderLines("").empty());
  EXPECT_TRUE(EncodeHeaderLines({}).empty());
}

}  // namespace
}  // namespace redrive
