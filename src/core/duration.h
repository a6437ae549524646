// The one grammar for durations typed by people (serve flags, CLI options):
// non-negative integers each with a unit — d, h, m, s or ms — largest unit
// first, each unit at most once; a bare number means seconds. "500ms", "30",
// "30s", "5m", "1h30m", "2d", "1m30s", "1s500ms". No fractions, no spaces.
// FormatDuration (core/time_format.h) writes the same forms.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace redrive {

// nullopt for anything outside the grammar (negative, overflow, unknown
// unit, fractions).
std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text);

// For error messages: what a valid duration looks like.
inline constexpr std::string_view kDurationExamples = "500ms, 90s, 5m, 1h30m, 7d";

}  // namespace redrive
