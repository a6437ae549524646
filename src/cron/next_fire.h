// When a cron expression fires, in an IANA time zone (the tz database of the
// system, /usr/share/zoneinfo, read through Howard Hinnant's date library).
//
// Daylight saving time: an expression matches LOCAL wall-clock times.
//   - A matching local time that does not exist (spring forward, e.g. 02:30
//     in New York on the second Sunday of March) fires once, at the first
//     instant after the gap (03:00 local); several such times fire once.
//   - A matching local time that happens twice (fall back) fires once, at its
//     first occurrence; the repeated hour fires nothing.
// `@every` ignores the zone: it is a fixed period of real time.
//
// Thread-safe: the zone database is loaded once and read-only after.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "cron/cron_expression.h"

namespace date {
class time_zone;
}

namespace redrive::cron {

inline constexpr std::size_t kMaxTimeZoneLength = 64;

// A zone of the tz database ("UTC", "Europe/Berlin"). Unknown names are a
// VALIDATION error on field "timezone".
Result<const date::time_zone*> FindTimeZone(std::string_view name);

// The first instant strictly after `after` at which `expression` fires in
// `zone`, whole seconds. nullopt when there is none within the search bound
// (ten years, which covers every valid expression: 29 February comes at least
// every eight) or before kMaxInstant.
std::optional<Instant> NextFire(const CronExpression& expression, const date::time_zone* zone,
                                Instant after);

// Up to `count` consecutive fire instants after `after`.
std::vector<Instant> NextFires(const CronExpression& expression, const date::time_zone* zone,
                               Instant after, std::size_t count);

// `instant` as local wall-clock time in `zone`, RFC 3339 with its offset:
// "2026-03-08T03:00:00-04:00".
std::string FormatLocal(Instant instant, const date::time_zone* zone);

}  // namespace redrive::cron
