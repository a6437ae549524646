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

// Shortens `text` to at most `max` code points, ending in "…" if cut, and
// flattens newlines so one cell stays on one line.
std::string Ellipsize(const std::string& text, size_t max);

}  // namespace redrive::cli
