#include "core/operation_codec.h"

#include <cstdio>
#include <cstdlib>

namespace redrive {

std::string JoinIds(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : "\n") + id;
  return out;
}

std::vector<std::string> SplitIds(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    out.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

std::string RateText(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.17g", rate);
  return buf;
}

double ParseRateText(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

}  // namespace redrive
