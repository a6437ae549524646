#include "core/comma_list.h"

namespace redrive {

std::string JoinCommaList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out.push_back(',');
    out += n;
  }
  return out;
}

std::vector<std::string> SplitCommaList(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    size_t comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace redrive
