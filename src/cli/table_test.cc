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

TEST(WrapTest, BreaksAtSpacesAndLineBreaksAndKeepsEveryCharacter) {
  using V = std::vector<std::string>;
  EXPECT_EQ(Wrap("short", 10), V{"short"});
  EXPECT_EQ(Wrap("upstream 504 after 20s", 12), (V{"upstream 504", "after 20s"}));
  EXPECT_EQ(Wrap("one\ntwo", 10), (V{"one", "two"}));
  // No space to break at: cut at the width, nothing dropped.
  EXPECT_EQ(Wrap("abcdefghij", 4), (V{"abcd", "efgh", "ij"}));
  // Widths count code points: "é" is two bytes, one column.
  EXPECT_EQ(Wrap("ééé ééé", 3), (V{"ééé", "ééé"}));
  EXPECT_EQ(Wrap("", 5), V{""});
}

TEST(DisplayWidthTest, CountsCodePoints) {
  EXPECT_EQ(DisplayWidth("abc"), 3u);
  EXPECT_EQ(DisplayWidth("é…"), 2u);
}

}  // namespace
}  // namespace redrive::cli
