#include "core/comma_list.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace redrive {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(CommaListTest, JoinsAndSplitsBackTheSameNames) {
  const std::vector<std::string> names = {"job.failed", "job.completed", "q-1"};
  EXPECT_EQ(JoinCommaList(names), "job.failed,job.completed,q-1");
  EXPECT_EQ(SplitCommaList(JoinCommaList(names)), names);
  EXPECT_THAT(SplitCommaList("one"), ElementsAre("one"));
}

TEST(CommaListTest, NoNamesIsTheEmptyText) {
  EXPECT_EQ(JoinCommaList({}), "");
  EXPECT_THAT(SplitCommaList(""), IsEmpty());
}

}  // namespace
}  // namespace redrive
