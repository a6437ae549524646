// RFC 3339 UTC timestamps with milliseconds, the contract's time format.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace redrive {

// The latest instant the contract's format can write and ParseTime read back:
// 9999-12-31T23:59:59.999999Z. Every instant computed from client-supplied
// numbers (a throttled redrive's run_at, a retry's delay, a lease) saturates
// here rather than leaving the four-digit year (or overflowing int64).
inline constexpr Instant kMaxInstant{Micros(253'402'300'799'999'999)};
// The earliest: 0000-01-01T00:00:00Z.
inline constexpr Instant kMinInstant{Micros(-62'167'219'200'000'000)};

// min(t + d, kMaxInstant), without overflow. REQUIRES: d >= 0 and
// t <= kMaxInstant.
Instant AddClamped(Instant t, Micros d);

// "2026-11-29T12:00:00.123Z" (milliseconds, truncated toward the past).
std::string FormatTime(Instant t);

// Accepts "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)"; 't'/'z' lower case too.
// Returns nullopt for anything else, and for a time outside [kMinInstant,
// kMaxInstant] (a leap second or an offset past either end), which
// FormatTime could not write back.
std::optional<Instant> ParseTime(std::string_view text);

// A compact human duration (CLI, logs), in the forms ParseDuration
// (core/duration.h) reads: the two largest units from the first non-zero
// one, zero parts dropped, truncated: "7d", "1d4h", "1h30m", "2h", "1m",
// "3m12s", "45s"; below 10 s with its milliseconds: "1s500ms", "250ms".
std::string FormatDuration(Micros d);

}  // namespace redrive
