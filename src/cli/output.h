// Printing helpers shared by the subcommands: --json output and the cells of
// human tables (relative times, tags, errors).
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/job.h"

namespace redrive::cli {

// `value` as one line of JSON on stdout: scripts read it with jq, and one
// line per command keeps `--json` output greppable.
void PrintJson(const boost::json::value& value);

// A relative time ("2m ago", "in 5s"), or "-" when unset.
std::string TimeCell(const std::optional<Instant>& when, Instant now);
// Both, for detail views: "2026-11-29T14:24:07.084Z (2m ago)", or "-".
std::string TimeDetail(const std::optional<Instant>& when, Instant now);
// "k=v,k2=v2", or "-" when there are none.
std::string TagsCell(const Tags& tags);
// "-" for empty strings, so table columns never look missing.
std::string OrDash(std::string_view text);
// 'text' for a POSIX shell: a command line printed for the user to paste,
// or a generated completion script.
std::string ShellQuoted(std::string_view text);

// "1s doubling to 1m, plus up to 500ms jitter"; "none (retried at once)"
// when the base is 0.
std::string BackoffText(const BackoffPolicy& backoff);

// 3211 → "3,211": counts people read.
std::string GroupedCount(long long n);
// "1 dead job", "2 dead jobs": `n` (grouped) and the noun, plural unless n
// is 1; `plural` defaults to singular + "s".
std::string Plural(long long n, std::string_view singular, std::string_view plural = {});

// Splits "k=v" (for --tag); nullopt without '=' or with an empty key.
std::optional<std::pair<std::string, std::string>> SplitTag(const std::string& text);
// CLI11 check function for --tag k=v.
std::string CheckTag(const std::string& text);

// True when fd is a terminal (progress bars, confirmation prompts).
bool IsTerminal(int fd);

}  // namespace redrive::cli
