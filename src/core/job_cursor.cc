#include "core/job_cursor.h"

#include <algorithm>
#include <charconv>

namespace redrive {

std::string FormatJobCursor(const JobCursor& cursor) {
  return std::to_string(ToMicros(cursor.created_at)) + "/" + cursor.id;
}

std::optional<JobCursor> ParseJobCursor(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()) {
    return std::nullopt;
  }
  int64_t us = 0;
  const char* end = text.data() + slash;
  auto [ptr, ec] = std::from_chars(text.data(), end, us);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return JobCursor{InstantFromMicros(us), std::string(text.substr(slash + 1))};
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
