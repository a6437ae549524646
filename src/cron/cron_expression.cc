#include "cron/cron_expression.h"

#include <array>
#include <cctype>
#include <charconv>
#include <vector>

#include "core/duration.h"

namespace redrive::cron {
namespace {

// One cron field's rules.
struct FieldSpec {
  const char* name;
  unsigned min;
  unsigned max;
  const char* const* names;  // names[i] is value min + i; nullptr when none
  bool allows_question;      // `?`
};

constexpr std::array<const char*, 12> kMonthNames = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                                     "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::array<const char*, 8> kDayNames = {"SUN", "MON", "TUE", "WED",
                                                  "THU", "FRI", "SAT", "SUN"};

constexpr FieldSpec kSecond{"second", 0, 59, nullptr, false};
constexpr FieldSpec kMinute{"minute", 0, 59, nullptr, false};
constexpr FieldSpec kHour{"hour", 0, 23, nullptr, false};
constexpr FieldSpec kDayOfMonth{"day_of_month", 1, 31, nullptr, true};
constexpr FieldSpec kMonth{"month", 1, 12, kMonthNames.data(), false};
constexpr FieldSpec kDayOfWeek{"day_of_week", 0, 7, kDayNames.data(), true};

// Days in each month of a leap year: what a day_of_month can ever reach.
constexpr std::array<unsigned, 13> kMaxDays = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

struct Token {
  std::string_view text;
  std::size_t position;  // 1-based
};

std::vector<Token> SplitFields(std::string_view text) {
  std::vector<Token> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    std::size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) tokens.push_back({text.substr(start, i - start), start + 1});
  }
  return tokens;
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Parses the result of one field, or the first error.
class FieldParser {
 public:
  FieldParser(const FieldSpec& spec, Token token, CronSyntaxError* error)
      : spec_(spec), token_(token), error_(error) {}

  // Sets `bits` (size max + 1) and, for the day fields, `last`/`last_days`.
  bool Parse(std::vector<bool>& bits, bool* last, std::vector<bool>* last_days) {
    std::size_t start = 0;
    const std::string_view text = token_.text;
    while (true) {
      std::size_t comma = text.find(',', start);
      std::size_t end = comma == std::string_view::npos ? text.size() : comma;
      if (!ParseItem(text.substr(start, end - start), start, bits, last, last_days)) return false;
      if (comma == std::string_view::npos) return true;
      start = comma + 1;
    }
  }

 private:
  bool Fail(std::size_t offset, std::string reason) {
    *error_ = {spec_.name, token_.position + offset, std::move(reason)};
    return false;
  }

  // A number or (for months and weekdays) a name, at `offset` in the token.
  bool ParseValue(std::string_view s, std::size_t offset, unsigned* value) {
    if (s.empty()) return Fail(offset, "expected a value");
    if (std::isdigit(static_cast<unsigned char>(s[0]))) {
      unsigned v = 0;
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || ptr != s.data() + s.size()) {
        return Fail(offset, "'" + std::string(s) + "' is not a number");
      }
      if (v < spec_.min || v > spec_.max) {
        return Fail(offset, "'" + std::string(s) + "' is out of range " +
                                std::to_string(spec_.min) + "-" + std::to_string(spec_.max));
      }
      *value = v;
      return true;
    }
    if (spec_.names != nullptr) {
      const std::string upper = Upper(s);
      for (unsigned v = spec_.min; v <= spec_.max; ++v) {
        if (upper == spec_.names[v - spec_.min]) {
          *value = v;
          return true;
        }
      }
    }
    return Fail(offset, "unknown value '" + std::string(s) + "'");
  }

  bool ParseItem(std::string_view item, std::size_t offset, std::vector<bool>& bits, bool* last,
                 std::vector<bool>* last_days) {
    if (item.empty()) return Fail(offset, "empty list item");
    if (last != nullptr && (item == "L" || item == "l")) {
      *last = true;
      return true;
    }
    if (last_days != nullptr && item.size() > 1 && (item.back() == 'L' || item.back() == 'l')) {
      unsigned day = 0;
      if (!ParseValue(item.substr(0, item.size() - 1), offset, &day)) return false;
      (*last_days)[day % 7] = true;
      return true;
    }
    std::string_view range = item;
    unsigned step = 1;
    bool has_step = false;
    if (std::size_t slash = item.find('/'); slash != std::string_view::npos) {
      range = item.substr(0, slash);
      std::string_view step_text = item.substr(slash + 1);
      auto [ptr, ec] = std::from_chars(step_text.data(), step_text.data() + step_text.size(), step);
      if (step_text.empty() || ec != std::errc() || ptr != step_text.data() + step_text.size() ||
          step == 0 || step > spec_.max) {
        return Fail(offset + slash + 1,
                    "step must be a number from 1 to " + std::to_string(spec_.max));
      }
      has_step = true;
    }
    unsigned low = spec_.min;
    unsigned high = spec_.max;
    if (range == "*" || (range == "?" && spec_.allows_question)) {
      if (range == "?" && has_step) return Fail(offset, "'?' takes no step");
    } else if (std::size_t dash = range.find('-'); dash != std::string_view::npos) {
      if (!ParseValue(range.substr(0, dash), offset, &low)) return false;
      if (!ParseValue(range.substr(dash + 1), offset + dash + 1, &high)) return false;
      if (low > high) {
        return Fail(offset, "range '" + std::string(range) + "' runs backwards");
      }
    } else {
      if (range == "?") return Fail(offset, "'?' is only allowed in day_of_month and day_of_week");
      if (!ParseValue(range, offset, &low)) return false;
      if (!has_step) high = low;  // `5/10` runs from 5 to the end
    }
    for (unsigned v = low; v <= high; v += step) bits[v] = true;
    return true;
  }

  const FieldSpec& spec_;
  Token token_;
  CronSyntaxError* error_;
};

template <std::size_t N>
bool ParseInto(const FieldSpec& spec, Token token, CronSyntaxError* error, std::bitset<N>* out,
               bool* last = nullptr, std::vector<bool>* last_days = nullptr) {
  std::vector<bool> bits(spec.max + 1, false);
  if (!FieldParser(spec, token, error).Parse(bits, last, last_days)) return false;
  for (unsigned v = spec.min; v <= spec.max; ++v) {
    if (bits[v]) out->set(v % N);  // day_of_week 7 is Sunday (0)
  }
  return true;
}

bool Restricted(Token token) { return token.text[0] != '*' && token.text[0] != '?'; }

std::string_view Macro(std::string_view name) {
  const std::string upper = Upper(name);
  if (upper == "@YEARLY" || upper == "@ANNUALLY") return "0 0 0 1 1 *";
  if (upper == "@MONTHLY") return "0 0 0 1 * *";
  if (upper == "@WEEKLY") return "0 0 0 * * 0";
  if (upper == "@DAILY" || upper == "@MIDNIGHT") return "0 0 0 * * *";
  if (upper == "@HOURLY") return "0 0 * * * *";
  return {};
}

bool ParseEvery(const std::vector<Token>& tokens, CronSyntaxError* error, CronExpression* out) {
  if (tokens.size() != 2) {
    *error = {"expression", tokens[0].position, "@every takes one duration, e.g. @every 15m"};
    return false;
  }
  std::optional<std::chrono::milliseconds> d = ParseDuration(tokens[1].text);
  if (!d || *d < kMinEvery || *d > kMaxEvery) {
    *error = {"expression", tokens[1].position,
              "@every needs a duration from 1s to 366d (" + std::string(kDurationExamples) + ")"};
    return false;
  }
  if (*d % std::chrono::seconds(1) != std::chrono::milliseconds(0)) {
    *error = {"expression", tokens[1].position, "@every needs whole seconds"};
    return false;
  }
  out->every = Micros(*d);
  return true;
}

// A day_of_month that no selected month has (`0 0 30 2 *`) would never fire.
bool DaysReachable(const CronExpression& e) {
  if (e.day_of_week_restricted || e.last_day_of_month) return true;
  for (unsigned m = 1; m <= 12; ++m) {
    if (!e.months[m]) continue;
    for (unsigned d = 1; d <= kMaxDays[m]; ++d) {
      if (e.days_of_month[d]) return true;
    }
  }
  return false;
}

bool ParseFields(std::string_view text, CronSyntaxError* error, CronExpression* out) {
  if (text.size() > kMaxExpressionLength) {
    *error = {"expression", kMaxExpressionLength + 1,
              "longer than " + std::to_string(kMaxExpressionLength) + " characters"};
    return false;
  }
  std::vector<Token> tokens = SplitFields(text);
  if (tokens.empty()) {
    *error = {"expression", 1, "empty expression"};
    return false;
  }
  if (tokens[0].text[0] == '@') {
    if (Upper(tokens[0].text) == "@EVERY") return ParseEvery(tokens, error, out);
    std::string_view expanded = Macro(tokens[0].text);
    if (expanded.empty() || tokens.size() != 1) {
      *error = {"expression", tokens[0].position,
                "unknown macro '" + std::string(tokens[0].text) +
                    "' (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, "
                    "@every DURATION)"};
      return false;
    }
    tokens = SplitFields(expanded);
    for (Token& t : tokens) t.position = 1;  // errors point at the macro
  }
  if (tokens.size() != 5 && tokens.size() != 6) {
    *error = {"expression", 1,
              "expected 5 fields (minute hour day_of_month month day_of_week) or 6 (second "
              "first), got " +
                  std::to_string(tokens.size())};
    return false;
  }
  if (tokens.size() == 5) {
    out->seconds.set(0);
  } else if (!ParseInto(kSecond, tokens[0], error, &out->seconds)) {
    return false;
  }
  const std::size_t f = tokens.size() - 5;
  std::vector<bool> last_days(8, false);
  if (!ParseInto(kMinute, tokens[f], error, &out->minutes) ||
      !ParseInto(kHour, tokens[f + 1], error, &out->hours) ||
      !ParseInto(kDayOfMonth, tokens[f + 2], error, &out->days_of_month, &out->last_day_of_month) ||
      !ParseInto(kMonth, tokens[f + 3], error, &out->months) ||
      !ParseInto(kDayOfWeek, tokens[f + 4], error, &out->days_of_week, nullptr, &last_days)) {
    return false;
  }
  for (unsigned d = 0; d < 7; ++d) out->last_weekday_of_month[d] = last_days[d];
  out->day_of_month_restricted = Restricted(tokens[f + 2]);
  out->day_of_week_restricted = Restricted(tokens[f + 4]);
  if (!DaysReachable(*out)) {
    *error = {"day_of_month", tokens[f + 2].position,
              "no selected month has day '" + std::string(tokens[f + 2].text) +
                  "', so the expression would never fire"};
    return false;
  }
  return true;
}

}  // namespace

std::string CronSyntaxError::Describe() const {
  return field + " at position " + std::to_string(position) + ": " + reason;
}

bool CronExpression::MatchesDay(unsigned day, unsigned weekday, unsigned last_day) const {
  const bool dom = days_of_month[day] || (last_day_of_month && day == last_day);
  const bool dow = days_of_week[weekday] || (last_weekday_of_month[weekday] && day + 7 > last_day);
  if (day_of_month_restricted && day_of_week_restricted) return dom || dow;
  return dom && dow;
}

Result<CronExpression> ParseCron(std::string_view text, CronSyntaxError* error) {
  CronExpression expression;
  CronSyntaxError local;
  CronSyntaxError* e = error != nullptr ? error : &local;
  if (!ParseFields(text, e, &expression)) {
    return Status::Validation("cron_expression", e->Describe());
  }
  return expression;
}

}  // namespace redrive::cron
