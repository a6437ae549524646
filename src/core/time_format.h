// RFC 3339 UTC timestamps with milliseconds, the contract's time format.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace redrive {

// "2026-11-29T12:00:00.123Z" (milliseconds, truncated toward the past).
std::string FormatTime(Instant t);

// Accepts "YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)"; 't'/'z' lower case too.
// Returns nullopt for anything else.
std::optional<Instant> ParseTime(std::string_view text);

// "3m12s", "450ms", "2h0m": a compact human duration (CLI, logs).
std::string FormatDuration(Micros d);

}  // namespace redrive
