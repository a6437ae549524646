// The one grammar for durations typed by people (serve flags, CLI options):
// a non-negative integer and one unit — ms, s, m, h or d; a bare number
// means seconds. "500ms", "30", "30s", "5m", "1h", "2d". No fractions, no
// compound forms ("1h30m"), no spaces.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace redrive {

// nullopt for anything outside the grammar (negative, overflow, unknown
// unit, fractions).
std::optional<std::chrono::milliseconds> ParseDuration(std::string_view text);

// For error messages: what a valid duration looks like.
inline constexpr std::string_view kDurationExamples = "500ms, 30s, 5m, 1h, 2d";

}  // namespace redrive
