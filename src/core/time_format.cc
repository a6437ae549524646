#include "core/time_format.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>

namespace redrive {

namespace chr = std::chrono;

Instant AddClamped(Instant t, Micros d) {
  if (d > kMaxInstant - t) return kMaxInstant;
  return t + d;
}

std::string FormatTime(Instant t) {
  const auto ms = chr::floor<chr::milliseconds>(t);
  const auto days = chr::floor<chr::days>(ms);
  const chr::year_month_day ymd{days};
  const chr::hh_mm_ss hms{ms - days};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", int(ymd.year()),
                unsigned(ymd.month()), unsigned(ymd.day()), int(hms.hours().count()),
                int(hms.minutes().count()), int(hms.seconds().count()),
                int(hms.subseconds().count()));
  return buf;
}

namespace {

// Reads exactly n digits at s[pos..] into out.
bool Digits(std::string_view s, size_t pos, size_t n, int& out) {
  if (pos + n > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

}  // namespace

std::optional<Instant> ParseTime(std::string_view s) {
  int y, mo, d, h, mi, sec;
  if (!Digits(s, 0, 4, y) || s.size() < 20 || s[4] != '-' || !Digits(s, 5, 2, mo) || s[7] != '-' ||
      !Digits(s, 8, 2, d) || (s[10] != 'T' && s[10] != 't') || !Digits(s, 11, 2, h) ||
      s[13] != ':' || !Digits(s, 14, 2, mi) || s[16] != ':' || !Digits(s, 17, 2, sec)) {
    return std::nullopt;
  }
  const chr::year_month_day ymd{chr::year(y), chr::month(unsigned(mo)), chr::day(unsigned(d))};
  if (!ymd.ok() || h > 23 || mi > 59 || sec > 60) return std::nullopt;
  size_t pos = 19;
  int64_t micros = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    size_t start = pos;
    int64_t scale = 100000;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      micros += (s[pos] - '0') * scale;
      scale /= 10;
      ++pos;
    }
    if (pos == start) return std::nullopt;
  }
  int offset_minutes = 0;
  if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
    ++pos;
  } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
    int oh, om;
    if (!Digits(s, pos + 1, 2, oh) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, om) || oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = (oh * 60 + om) * (s[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    return std::nullopt;
  }
  if (pos != s.size()) return std::nullopt;
  auto t = chr::sys_days(ymd) + chr::hours(h) + chr::minutes(mi) + chr::seconds(sec) -
           chr::minutes(offset_minutes);
  const Instant instant = chr::time_point_cast<Micros>(t) + Micros(micros);
  if (instant < kMinInstant || instant > kMaxInstant) return std::nullopt;
  return instant;
}

std::string FormatDuration(Micros d) {
  const bool negative = d.count() < 0;
  std::string out = negative ? "-" : "";
  // The magnitude in unsigned arithmetic: -d overflows for Micros::min().
  const uint64_t us =
      negative ? 0 - static_cast<uint64_t>(d.count()) : static_cast<uint64_t>(d.count());
  const uint64_t ms = us / 1000;
  if (ms < 1000) return out + std::to_string(ms) + "ms";
  if (ms < 10'000) {  // below 10 s the milliseconds still matter
    out += std::to_string(ms / 1000) + "s";
    return ms % 1000 == 0 ? out : out + std::to_string(ms % 1000) + "ms";
  }
  const uint64_t s = ms / 1000;
  const struct {
    uint64_t count;
    const char* unit;
  } parts[] = {{s / 86400, "d"}, {(s / 3600) % 24, "h"}, {(s / 60) % 60, "m"}, {s % 60, "s"}};
  size_t first = 0;
  while (parts[first].count == 0) ++first;  // s >= 10, so some part is non-zero
  out += std::to_string(parts[first].count) + parts[first].unit;
  if (first + 1 < std::size(parts) && parts[first + 1].count != 0) {
    out += std::to_string(parts[first + 1].count) + parts[first + 1].unit;
  }
  return out;
}

}  // namespace redrive
