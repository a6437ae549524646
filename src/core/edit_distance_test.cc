#include "core/edit_distance.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(EditDistanceTest, CountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("", ""), 0u);
  EXPECT_EQ(EditDistance("lst", "list"), 1u);
  EXPECT_EQ(EditDistance("list", "lsit"), 2u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
}

}  // namespace
}  // namespace redrive
