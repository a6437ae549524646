#include "cli/output.h"

#include <unistd.h>

#include <boost/json/serialize.hpp>
#include <iostream>

#include "cli/durations.h"
#include "core/time_format.h"

namespace redrive::cli {

void PrintJson(const boost::json::value& value) {
  std::cout << boost::json::serialize(value) << '\n';
}

std::string TimeCell(const std::optional<Instant>& when, Instant now) {
  return when ? FormatRelative(*when, now) : "-";
}

std::string TimeDetail(const std::optional<Instant>& when, Instant now) {
  if (!when) return "-";
  return FormatTime(*when) + " (" + FormatRelative(*when, now) + ")";
}

std::string TagsCell(const Tags& tags) {
  std::string out;
  for (const auto& [key, value] : tags) {
    if (!out.empty()) out += ',';
    out += key + "=" + value;
  }
  return OrDash(out);
}

std::string OrDash(std::string_view text) { return text.empty() ? "-" : std::string(text); }

std::optional<std::pair<std::string, std::string>> SplitTag(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

std::string CheckTag(const std::string& text) {
  return SplitTag(text) ? "" : "'" + text + "' is not a tag: write key=value";
}

bool IsTerminal(int fd) { return isatty(fd) == 1; }

}  // namespace redrive::cli
