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

std::string BackoffText(const BackoffPolicy& b) {
  // A base of 0 doubles to 0 whatever the max: no backoff.
  std::string text = b.base.count() == 0
                         ? std::string("none (retried at once)")
                         : FormatDuration(b.base) + " doubling to " + FormatDuration(b.max);
  if (b.jitter.count() > 0) text += ", plus up to " + FormatDuration(b.jitter) + " jitter";
  return text;
}

std::string ShellQuoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string GroupedCount(long long n) {
  std::string digits = std::to_string(n < 0 ? -(n + 1) + 1ULL : static_cast<unsigned long long>(n));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Plural(long long n, std::string_view singular, std::string_view plural) {
  std::string noun(n == 1 ? singular : (plural.empty() ? std::string(singular) + "s" : plural));
  return GroupedCount(n) + " " + noun;
}

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
