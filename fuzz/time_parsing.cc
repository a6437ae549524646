// fuzz_time_parsing: the time and duration grammars. The first byte picks
// one; the rest is the text (or, for the formatters, the numbers).
//   RFC 3339 (core/time_format.h, every time field of a request): a time
//     ParseTime accepts is one FormatTime writes and ParseTime reads back,
//     to the millisecond.
//   durations (core/duration.h, serve's flags and the CLI): non-negative,
//     the same read back in milliseconds; serve's whole-second form within
//     its bounds.
//   FormatDuration and AddClamped over any numbers they take: no UB, and
//     AddClamped is min(t + d, kMaxInstant).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/duration.h"
#include "core/time_format.h"
#include "server/serve_config.h"

namespace redrive::fuzz {
namespace {

[[noreturn]] void Fail(std::string_view what, std::string_view input) {
  std::fprintf(stderr, "fuzz: %.*s\ninput: %.*s\n", static_cast<int>(what.size()), what.data(),
               static_cast<int>(input.size()), input.data());
  std::abort();
}

void Rfc3339(std::string_view text) {
  const std::optional<Instant> t = ParseTime(text);
  if (!t) return;
  const std::string written = FormatTime(*t);
  const std::optional<Instant> again = ParseTime(written);
  if (!again) Fail("ParseTime refuses what FormatTime wrote: " + written, text);
  if (*again != std::chrono::floor<std::chrono::milliseconds>(*t)) {
    Fail("FormatTime → ParseTime changed the time: " + written, text);
  }
}

void Durations(std::string_view text) {
  if (const std::optional<std::chrono::milliseconds> d = ParseDuration(text)) {
    if (d->count() < 0) Fail("a negative duration", text);
    if (ParseDuration(std::to_string(d->count()) + "ms") != d) Fail("not read back in ms", text);
  }
  if (Result<std::chrono::seconds> s = server::ParseDurationSeconds(text); s.ok()) {
    if (s->count() <= 0 || *s > std::chrono::hours(365 * 24)) Fail("out of serve's bounds", text);
    if (ParseDuration(text) != std::chrono::milliseconds(*s)) Fail("not ParseDuration's", text);
  }
}

int64_t Int64(std::string_view bytes, size_t index) {
  int64_t v = 0;
  if (bytes.size() >= (index + 1) * sizeof v) {
    std::memcpy(&v, bytes.data() + index * sizeof v, sizeof v);
  }
  return v;
}

void Numbers(std::string_view bytes) {
  (void)FormatDuration(Micros(Int64(bytes, 0)));
  // FormatTime's and AddClamped's domain: kMinInstant <= t <= kMaxInstant
  // (AddClamped: and d >= 0).
  const Instant t = std::clamp(InstantFromMicros(Int64(bytes, 1)), kMinInstant, kMaxInstant);
  (void)FormatTime(t);
  const int64_t d = Int64(bytes, 2);
  if (d < 0) return;
  const Instant sum = AddClamped(t, Micros(d));
  const bool fits = ToMicros(kMaxInstant) - ToMicros(t) >= d;
  if (sum > kMaxInstant || sum < t || (fits && sum != t + Micros(d)) ||
      (!fits && sum != kMaxInstant)) {
    Fail("AddClamped is not min(t + d, kMaxInstant)", bytes);
  }
}

}  // namespace
}  // namespace redrive::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace redrive::fuzz;
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0:
      Rfc3339(rest);
      break;
    case 1:
      Durations(rest);
      break;
    case 2:
      Numbers(rest);
      break;
  }
  return 0;
}
