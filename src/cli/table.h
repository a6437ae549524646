// Aligned plain-text tables for the CLI's human output:
//
//   Table t({"ID", "STATUS", "AGE"});
//   t.AddRow({id, "pending", "2m ago"});
//   t.Print(std::cout);
//
// Columns are as wide as their widest cell (counted in UTF-8 code points) and
// separated by two spaces; the last column is not padded.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace redrive::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> headers);

  // REQUIRES: cells.size() == number of headers.
  void AddRow(std::vector<std::string> cells);
  bool empty() const { return rows_.empty(); }
  void Print(std::ostream& out) const;

 private:
  void PrintRow(std::ostream& out, const std::vector<std::string>& cells,
                const std::vector<size_t>& widths) const;

  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Key/value lines for one object ("Status:    pending"), keys padded alike.
class Details {
 public:
  void Add(std::string key, std::string value);
  void Print(std::ostream& out) const;

 private:
  std::vector<std::pair<std::string, std::string>> lines_;
};

// Columns `text` takes on a terminal: its UTF-8 code points (about one
// column each for the text we print: ids, names, errors; counting bytes
// would misalign "…").
size_t DisplayWidth(std::string_view text);

// Shortens `text` to at most `max` code points, ending in "…" if cut, and
// flattens newlines so one cell stays on one line.
std::string Ellipsize(const std::string& text, size_t max);

// `text` in lines of at most `width` code points, broken at a space where
// there is one (the space is dropped) and at the text's own line breaks.
// Nothing else is left out: for a cell shown whole over several rows.
// REQUIRES: width > 0.
std::vector<std::string> Wrap(std::string_view text, size_t width);

}  // namespace redrive::cli
