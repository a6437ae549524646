#include "core/job_cursor.h"

#include <algorithm>
#include <charconv>

namespace redrive {

std::string FormatJobCursor(const JobCursor& cursor) {
  std::string text = std::to_string(ToMicros(cursor.created_at));
  if (cursor.seq != 0) text += ":" + std::to_string(cursor.seq);
  return text + "/" + cursor.id;
}

namespace {
// The whole of `text` as a decimal integer.
std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}
}  // namespace

std::optional<JobCursor> ParseJobCursor(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()) {
    return std::nullopt;
  }
  std::string_view when = text.substr(0, slash);
  int64_t seq = 0;
  if (const size_t colon = when.find(':'); colon != std::string_view::npos) {
    std::optional<int64_t> s = ParseInt(when.substr(colon + 1));
    if (!s || *s <= 0) return std::nullopt;
    seq = *s;
    when = when.substr(0, colon);
  }
  std::optional<int64_t> us = ParseInt(when);
  if (!us) return std::nullopt;
  return JobCursor{InstantFromMicros(*us), std::string(text.substr(slash + 1)), seq};
}

void KeepFirstByCursor(std::vector<Job>& jobs, size_t limit) {
  auto before = [](const Job& a, const Job& b) {
    return a.created_at != b.created_at ? a.created_at < b.created_at : a.id < b.id;
  };
  if (jobs.size() > limit) {
    std::partial_sort(jobs.begin(), jobs.begin() + static_cast<std::ptrdiff_t>(limit), jobs.end(),
                      before);
    jobs.resize(limit);
  } else {
    std::sort(jobs.begin(), jobs.end(), before);
  }
}

}  // namespace redrive
