#include "cron/next_fire.h"

#include <date/date.h>
#include <date/tz.h>

#include <cstdio>
#include <exception>

#include "core/time_format.h"

namespace redrive::cron {
namespace {

using std::chrono::duration_cast;
using std::chrono::floor;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr int kSearchYears = 10;

// The instant a matching local time fires at (see the header's DST rules).
std::chrono::sys_seconds Resolve(const date::time_zone* zone, date::local_seconds local) {
  const date::local_info info = zone->get_info(local);
  if (info.result == date::local_info::nonexistent) return info.second.begin;
  // Unique, or ambiguous: `first` is the earlier of the two offsets' instants.
  return std::chrono::sys_seconds{local.time_since_epoch() - info.first.offset};
}

}  // namespace

Result<const date::time_zone*> FindTimeZone(std::string_view name) {
  if (name.empty() || name.size() > kMaxTimeZoneLength) {
    return Status::Validation("timezone",
                              "timezone must be an IANA zone name such as UTC or "
                              "Europe/Berlin, at most " +
                                  std::to_string(kMaxTimeZoneLength) + " characters");
  }
  try {
    return date::locate_zone(name);
  } catch (const std::exception&) {
    return Status::Validation("timezone", "unknown timezone '" + std::string(name) +
                                              "' (an IANA zone name such as UTC or Europe/Berlin)");
  }
}

std::optional<Instant> NextFire(const CronExpression& e, const date::time_zone* zone,
                                Instant after) {
  if (e.every) {
    if (after >= kMaxInstant - *e.every) return std::nullopt;
    return after + *e.every;
  }
  const std::chrono::sys_seconds after_s = floor<seconds>(after);
  date::local_seconds t = zone->to_local(after_s) + seconds(1);
  const date::year limit =
      date::year_month_day{floor<date::days>(t)}.year() + date::years(kSearchYears);
  while (true) {
    const date::local_days day = floor<date::days>(t);
    const date::year_month_day ymd{day};
    if (ymd.year() > limit || ymd.year() > date::year(9999)) return std::nullopt;
    if (!e.months[static_cast<unsigned>(ymd.month())]) {
      const date::year_month next = date::year_month{ymd.year(), ymd.month()} + date::months(1);
      t = date::local_days{next / 1};
      continue;
    }
    const unsigned last = static_cast<unsigned>((ymd.year() / ymd.month() / date::last).day());
    const unsigned weekday = date::weekday{day}.c_encoding();
    if (!e.MatchesDay(static_cast<unsigned>(ymd.day()), weekday, last)) {
      t = day + date::days(1);
      continue;
    }
    const seconds time_of_day = t - day;
    const auto h = duration_cast<hours>(time_of_day);
    const auto m = duration_cast<minutes>(time_of_day - h);
    const auto s = time_of_day - h - m;
    if (!e.hours[h.count()]) {
      t = day + h + hours(1);
      continue;
    }
    if (!e.minutes[m.count()]) {
      t = day + h + m + minutes(1);
      continue;
    }
    if (!e.seconds[s.count()]) {
      t += seconds(1);
      continue;
    }
    const Instant fire = std::chrono::time_point_cast<Micros>(Resolve(zone, t));
    if (fire > kMaxInstant) return std::nullopt;
    // A fall-back hour's second pass maps to instants already past.
    if (fire > after) return fire;
    t += seconds(1);
  }
}

std::vector<Instant> NextFires(const CronExpression& expression, const date::time_zone* zone,
                               Instant after, std::size_t count) {
  std::vector<Instant> fires;
  while (fires.size() < count) {
    std::optional<Instant> next = NextFire(expression, zone, after);
    if (!next) break;
    fires.push_back(*next);
    after = *next;
  }
  return fires;
}

std::string FormatLocal(Instant instant, const date::time_zone* zone) {
  const std::chrono::sys_seconds s = floor<seconds>(instant);
  const date::sys_info info = zone->get_info(s);
  const date::local_seconds local = zone->to_local(s);
  const date::local_days day = floor<date::days>(local);
  const date::year_month_day ymd{day};
  const date::hh_mm_ss<seconds> tod{local - day};
  const long offset_minutes = duration_cast<minutes>(info.offset).count();
  const long abs_offset = offset_minutes < 0 ? -offset_minutes : offset_minutes;
  char out[96];
  std::snprintf(out, sizeof out, "%04d-%02u-%02uT%02ld:%02ld:%02ld%c%02ld:%02ld",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<long>(tod.hours().count()),
                static_cast<long>(tod.minutes().count()), static_cast<long>(tod.seconds().count()),
                offset_minutes < 0 ? '-' : '+', abs_offset / 60, abs_offset % 60);
  return out;
}

}  // namespace redrive::cron
