// Human durations, rates and relative times on the command line: "500ms",
// "30s", "5m", "1h", "2d" (core/duration.h, the grammar `serve` flags take
// too); "50/s", "600/m"; "2m ago", "in 5s".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/duration.h"

namespace redrive::cli {

// "N/s", "N/m", "N/h" or a bare "N" (per second), N > 0 and possibly
// fractional ("0.5/s"). Returns jobs per second.
std::optional<double> ParseRate(std::string_view text);

// `when` relative to `now`: "just now", "12s ago", "3m12s ago", "in 5s".
std::string FormatRelative(Instant when, Instant now);

// Whole seconds, as the API wants them, rounding up so that "500ms" never
// becomes 0.
long long CeilSeconds(std::chrono::milliseconds d);

// CLI11 check functions: "" when `text` is valid, else the error message.
std::string CheckDuration(const std::string& text);
std::string CheckRate(const std::string& text);

}  // namespace redrive::cli
