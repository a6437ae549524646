#include "cli/table.h"

#include <gtest/gtest.h>

#include <sstream>

namespace redrive::cli {
namespace {

TEST(TableTest, AlignsColumnsAndTrimsTheLast) {
  Table t({"ID", "STATUS", "NOTE"});
  t.AddRow({"a", "pending", ""});
  t.AddRow({"long-id", "dead", "x"});
  std::ostringstream out;
  t.Print(out);
  EXPECT_EQ(out.str(),
            "ID       STATUS   NOTE\n"
            "a        pending\n"
            "long-id  dead     x\n");
}

TEST(TableTest, CountsCodePointsNotBytes) {
  Table t({"A", "B"});
  t.AddRow({"é…", "x"});
  std::ostringstream out;
  t.Print(out);
  EXPECT_EQ(out.str(), "A   B\né…  x\n");
}

TEST(DetailsTest, PadsKeys) {
  Details d;
  d.Add("ID", "1");
  d.Add("Status", "ok");
  std::ostringstream out;
  d.Print(out);
  EXPECT_EQ(out.str(), "ID:      1\nStatus:  ok\n");
}

TEST(EllipsizeTest, CutsAndFlattens) {
  EXPECT_EQ(Ellipsize("short", 10), "short");
  EXPECT_EQ(Ellipsize("line1\nline2", 20), "line1 line2");
  EXPECT_EQ(Ellipsize("abcdefghij", 5), "abcd…");
}

}  // namespace
}  // namespace redrive::cli
