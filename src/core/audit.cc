#include "core/audit.h"

namespace redrive {

std::string EncodeHeaderLines(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string out;
  for (const auto& [name, value] : headers) out += name + '\t' + value + '\n';
  return out;
}

std::vector<std::pair<std::string, std::string>> DecodeHeaderLines(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    const size_t tab = line.find('\t');
    if (tab != std::string_view::npos) {
      out.emplace_back(std::string(line.substr(0, tab)), std::string(line.substr(tab + 1)));
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace redrive
