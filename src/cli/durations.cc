#include "cli/durations.h"

#include <cmath>
#include <cstdlib>

#include "core/time_format.h"

namespace redrive::cli {

using std::chrono::milliseconds;

std::optional<double> ParseRate(std::string_view text) {
  double per = 1.0;
  size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    std::string_view unit = text.substr(slash + 1);
    if (unit == "s")
      per = 1.0;
    else if (unit == "m")
      per = 60.0;
    else if (unit == "h")
      per = 3600.0;
    else
      return std::nullopt;
    text = text.substr(0, slash);
  }
  // strtod, not from_chars: g++ 12's floating from_chars is fine, but strtod
  // also accepts the "1e-3" forms a user may paste from elsewhere.
  std::string number(text);
  char* end = nullptr;
  double count = std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size()) return std::nullopt;
  if (!std::isfinite(count) || count <= 0) return std::nullopt;
  return count / per;
}

std::string FormatRelative(Instant when, Instant now) {
  auto delta = std::chrono::duration_cast<std::chrono::seconds>(when - now);
  if (delta.count() == 0) return "just now";
  // Whole seconds: sub-second precision is noise in a table.
  std::string text = FormatDuration(std::chrono::abs(delta));
  return delta.count() < 0 ? text + " ago" : "in " + text;
}

long long CeilSeconds(milliseconds d) { return (d.count() + 999) / 1000; }

std::string CheckDuration(const std::string& text) {
  if (ParseDuration(text)) return "";
  return "'" + text + "' is not a duration (examples: " + std::string(kDurationExamples) + ")";
}

std::string CheckRate(const std::string& text) {
  if (ParseRate(text)) return "";
  return "'" + text + "' is not a rate (examples: 50/s, 600/m, 0.5/s)";
}

}  // namespace redrive::cli
