#include "cli/table.h"

#include <algorithm>
#include <cassert>

namespace redrive::cli {
namespace {

// The bytes of the first `n` code points of `text`.
size_t BytesOfPoints(std::string_view text, size_t n) {
  size_t points = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((text[i] & 0xC0) != 0x80 && points++ == n) return i;
  }
  return text.size();
}

}  // namespace

size_t DisplayWidth(std::string_view text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

Table::Table(std::vector<std::string> headers) : headers_(std::move(headers)) {}

void Table::AddRow(std::vector<std::string> cells) {
  assert(cells.size() == headers_.size());
  rows_.push_back(std::move(cells));
}

void Table::Print(std::ostream& out) const {
  std::vector<size_t> widths(headers_.size());
  for (size_t i = 0; i < headers_.size(); ++i) widths[i] = DisplayWidth(headers_[i]);
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  PrintRow(out, headers_, widths);
  for (const auto& row : rows_) PrintRow(out, row, widths);
}

void Table::PrintRow(std::ostream& out, const std::vector<std::string>& cells,
                     const std::vector<size_t>& widths) const {
  std::string line;
  for (size_t i = 0; i < cells.size(); ++i) {
    line += cells[i];
    if (i + 1 < cells.size()) line.append(widths[i] - DisplayWidth(cells[i]) + 2, ' ');
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out << line << '\n';
}

void Details::Add(std::string key, std::string value) {
  lines_.emplace_back(std::move(key), std::move(value));
}

void Details::Print(std::ostream& out) const {
  size_t width = 0;
  for (const auto& [key, value] : lines_) width = std::max(width, DisplayWidth(key));
  for (const auto& [key, value] : lines_) {
    out << key << ':' << std::string(width - DisplayWidth(key) + 2, ' ') << value << '\n';
  }
}

std::string Ellipsize(const std::string& text, size_t max) {
  std::string flat = text;
  std::replace_if(
      flat.begin(), flat.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  if (DisplayWidth(flat) <= max) return flat;
  std::string out;
  size_t points = 0;
  for (char c : flat) {
    bool starts_point = (c & 0xC0) != 0x80;
    if (starts_point && ++points > max - 1) break;
    out += c;
  }
  return out + "…";
}

std::vector<std::string> Wrap(std::string_view text, size_t width) {
  std::vector<std::string> lines;
  while (true) {
    size_t newline = text.find('\n');
    std::string_view rest = text.substr(0, newline);
    while (DisplayWidth(rest) > width) {
      size_t cut = BytesOfPoints(rest, width);
      size_t space = rest.rfind(' ', cut);
      if (space == std::string_view::npos || space == 0) {
        lines.emplace_back(rest.substr(0, cut));
        rest.remove_prefix(cut);
      } else {
        lines.emplace_back(rest.substr(0, space));
        rest.remove_prefix(space + 1);
      }
    }
    lines.emplace_back(rest);
    if (newline == std::string_view::npos) return lines;
    text.remove_prefix(newline + 1);
  }
}

}  // namespace redrive::cli
