#include "cli/list_pages.h"

#include <gtest/gtest.h>

#include <numeric>

namespace redrive::cli {
namespace {

// A server list of `size` rows 0..size-1, recording the pages asked for.
struct FakeList {
  int size;
  std::vector<std::pair<int, int>> asked;  // (offset, limit)
  PageReader<int> Reader() {
    return [this](int offset, int limit) -> Result<std::vector<int>> {
      asked.emplace_back(offset, limit);
      std::vector<int> rows;
      for (int i = offset; i < std::min(size, offset + limit); ++i) rows.push_back(i);
      return rows;
    };
  }
};

TEST(ReadPagesTest, AskedForFewerThanExistSaysThereIsMore) {
  FakeList list{.size = 3211};
  auto r = ReadPages(list.Reader(), 0, 50, 100);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 50u);
  EXPECT_TRUE(r->more);
  EXPECT_EQ(list.asked, (std::vector<std::pair<int, int>>{{0, 51}}));  // one probe row
}

TEST(ReadPagesTest, ALimitAboveThePageSizeIsPaged) {
  FakeList list{.size = 3211};
  auto r = ReadPages(list.Reader(), 10, 250, 100);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->rows.size(), 250u);
  EXPECT_EQ(r->rows.front(), 10);
  EXPECT_EQ(r->rows.back(), 259);
  EXPECT_TRUE(r->more);
  EXPECT_EQ(list.asked, (std::vector<std::pair<int, int>>{{10, 100}, {110, 100}, {210, 51}}));
}

TEST(ReadPagesTest, ExactlyAllRowsIsNotMore) {
  FakeList list{.size = 50};
  auto r = ReadPages(list.Reader(), 0, 50, 100);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 50u);
  EXPECT_FALSE(r->more);
}

TEST(ReadPagesTest, AllReadsUntilAShortPage) {
  FakeList list{.size = 230};
  auto r = ReadPages(list.Reader(), 0, std::nullopt, 100);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->rows.size(), 230u);
  EXPECT_FALSE(r->more);
  EXPECT_EQ(list.asked.size(), 3u);
  FakeList exact{.size = 200};  // a full last page needs one empty page to end
  EXPECT_EQ(ReadPages(exact.Reader(), 0, std::nullopt, 100)->rows.size(), 200u);
  EXPECT_EQ(exact.asked.size(), 3u);
}

TEST(ReadPagesTest, AnErrorIsReturned) {
  PageReader<int> failing = [](int, int) -> Result<std::vector<int>> {
    return Status::Unavailable("down");
  };
  EXPECT_EQ(ReadPages(failing, 0, 5, 100).status().code(), ErrorCode::kUnavailable);
}

TEST(MoreHintTest, WithAndWithoutTheTotal) {
  EXPECT_EQ(MoreHint(50, 3211), "showing 50 of 3,211 — use --all or --offset");
  EXPECT_EQ(MoreHint(50, std::nullopt), "showing 50; more available — use --all or --offset");
}

}  // namespace
}  // namespace redrive::cli
