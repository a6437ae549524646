#include "wire/json_read.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "core/time_format.h"

namespace redrive::wire {

std::optional<std::string> ReadString(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

std::string ReadStringOr(const boost::json::object& o, std::string_view key, std::string fallback) {
  auto s = ReadString(o, key);
  return s ? std::move(*s) : std::move(fallback);
}

std::optional<int64_t> ReadInt(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) {
    const uint64_t u = v->get_uint64();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  // A double converts only inside int64's range (2^63 is exact as a double);
  // outside it the conversion is undefined behaviour.
  constexpr double kTwo63 = 9223372036854775808.0;
  if (v->is_double()) {
    const double d = v->get_double();
    if (std::isfinite(d) && d >= -kTwo63 && d < kTwo63) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

int64_t ReadIntOr(const boost::json::object& o, std::string_view key, int64_t fallback) {
  return ReadInt(o, key).value_or(fallback);
}

bool ReadBoolOr(const boost::json::object& o, std::string_view key, bool fallback) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() ? v->get_bool() : fallback;
}

std::optional<Instant> ReadTime(const boost::json::object& o, std::string_view key) {
  auto s = ReadString(o, key);
  if (!s) return std::nullopt;
  return ParseTime(*s);
}

const boost::json::object* ReadObject(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v ? v->if_object() : nullptr;
}

Tags ReadTags(const boost::json::object& o, std::string_view key) {
  Tags tags;
  if (const auto* t = ReadObject(o, key)) {
    for (const auto& [k, v] : *t) {
      if (v.is_string()) tags[std::string(k)] = std::string(v.get_string());
    }
  }
  return tags;
}

}  // namespace redrive::wire
