#include "core/job_cursor.h"

#include <gtest/gtest.h>

namespace redrive {
namespace {

TEST(JobCursorTest, RoundTripsThroughItsText) {
  const JobCursor c{InstantFromMicros(1'800'000'000'123'456),
                    "0190a1b2-0000-7000-8000-000000000001"};
  EXPECT_EQ(FormatJobCursor(c), "1800000000123456/0190a1b2-0000-7000-8000-000000000001");
  EXPECT_EQ(ParseJobCursor(FormatJobCursor(c)), c);
  // Ids may hold a slash: only the first one separates.
  const JobCursor slashed{InstantFromMicros(5), "a/b"};
  EXPECT_EQ(ParseJobCursor(FormatJobCursor(slashed)), slashed);
  const JobCursor before_epoch{InstantFromMicros(-7), "x"};
  EXPECT_EQ(ParseJobCursor(FormatJobCursor(before_epoch)), before_epoch);
  // With the store's insertion order (SQLite).
  const JobCursor with_seq{InstantFromMicros(12), "a/b", 345};
  EXPECT_EQ(FormatJobCursor(with_seq), "12:345/a/b");
  EXPECT_EQ(ParseJobCursor("12:345/a/b"), with_seq);
}

TEST(JobCursorTest, RefusesAnythingElse) {
  for (const char* bad :
       {"", "job-0500", "/id", "12/", "12x/id", " 12/id", "1e3/id", "99999999999999999999999/id",
        "12:/id", ":5/id", "12:0/id", "12:-5/id", "12:5x/id", "12:5:6/id"}) {
    EXPECT_EQ(ParseJobCursor(bad), std::nullopt) << bad;
  }
}

TEST(JobCursorTest, OrdersByCreationThenId) {
  const JobCursor early{InstantFromMicros(1), "z"};
  const JobCursor later{InstantFromMicros(2), "a"};
  const JobCursor later_b{InstantFromMicros(2), "b"};
  EXPECT_LT(early, later);
  EXPECT_LT(later, later_b);
  Job j;
  j.id = "b";
  j.created_at = InstantFromMicros(2);
  EXPECT_EQ(CursorOf(j), later_b);
}

TEST(JobCursorTest, KeepFirstByCursorMergesAndCuts) {
  auto job = [](int64_t us, std::string id) {
    Job j;
    j.id = std::move(id);
    j.created_at = InstantFromMicros(us);
    return j;
  };
  // Two statuses' reads, each in order, concatenated.
  std::vector<Job> jobs{job(1, "a"), job(4, "d"), job(9, "i"), job(2, "b"), job(4, "c")};
  KeepFirstByCursor(jobs, 4);
  std::vector<std::string> ids;
  for (const Job& j : jobs) ids.push_back(j.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b", "c", "d"}));
  KeepFirstByCursor(jobs, 10);  // fewer than the limit: all, in order
  EXPECT_EQ(jobs.size(), 4u);
  KeepFirstByCursor(jobs, 0);
  EXPECT_TRUE(jobs.empty());
}

}  // namespace
}  // namespace redrive
