// Cron expressions: the parsed form and its grammar. Pure (no clock, no
// time zones); cron/next_fire.h turns a CronExpression into fire instants.
//
// Grammar (docs/operations.md, "Cron expressions"):
//   six fields   second minute hour day_of_month month day_of_week
//   five fields  minute hour day_of_month month day_of_week (second is 0)
//   each field   a comma list of items: `*`, `N`, `A-B`, any of these with
//                `/STEP` (`*/15`, `10-40/5`, `5/10` = from 5 to the end),
//                month names JAN–DEC and day names SUN–SAT (any case);
//                `?` (day_of_month, day_of_week) means `*`; `L`
//                (day_of_month) is the month's last day; `NL` (day_of_week,
//                e.g. `5L` or `FRIL`) is the month's last such weekday.
//                day_of_week is 0–7, 0 and 7 both Sunday.
//   macros       @yearly @annually @monthly @weekly @daily @midnight @hourly,
//                and `@every DURATION` (core/duration.h, 1s to 366d).
// Day rule (Vixie cron): when both day_of_month and day_of_week are
// restricted (neither starts with `*` or `?`), a day matches if EITHER
// matches; otherwise both must.
#pragma once

#include <bitset>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace redrive::cron {

// Longest expression accepted.
inline constexpr std::size_t kMaxExpressionLength = 256;
// Bounds of `@every`.
inline constexpr Micros kMinEvery = std::chrono::seconds(1);
inline constexpr Micros kMaxEvery = std::chrono::hours(24 * 366);

// Where and why an expression was refused. `field` is the cron field
// (`second`, `minute`, `hour`, `day_of_month`, `month`, `day_of_week`) or
// `expression` for the whole text; `position` is 1-based, in characters of
// the text as given.
struct CronSyntaxError {
  std::string field;
  std::size_t position = 1;
  std::string reason;

  // "day_of_week at position 11: unknown name 'FRY'".
  std::string Describe() const;
};

// A parsed expression. Either calendar fields or a fixed period (`@every`).
struct CronExpression {
  std::bitset<60> seconds;
  std::bitset<60> minutes;
  std::bitset<24> hours;
  std::bitset<32> days_of_month;         // bit 1..31
  std::bitset<13> months;                // bit 1..12
  std::bitset<7> days_of_week;           // bit 0 = Sunday
  bool last_day_of_month = false;        // `L` in day_of_month
  std::bitset<7> last_weekday_of_month;  // `5L` in day_of_week
  bool day_of_month_restricted = false;
  bool day_of_week_restricted = false;
  std::optional<Micros> every;  // `@every`: the other fields are unused

  // Whether the calendar day (year, month 1..12, day 1..31, weekday 0..6
  // with 0 = Sunday, the month's last day) is one this expression fires on;
  // the month itself is checked by the caller.
  bool MatchesDay(unsigned day, unsigned weekday, unsigned last_day) const;
};

// Parses `text`. On failure the Status is VALIDATION on field
// "cron_expression" with CronSyntaxError::Describe() as its message, and
// `*error` (when given) is set.
Result<CronExpression> ParseCron(std::string_view text, CronSyntaxError* error = nullptr);

}  // namespace redrive::cron
