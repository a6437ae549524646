#include "wire/json_text.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>

#include "core/limits.h"

namespace redrive::wire {

boost::json::value EmbedJsonText(std::string_view text) {
  boost::system::error_code ec;
  // Read back what was stored with the limit the API accepted it under.
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  boost::json::value value = boost::json::parse(text, ec, {}, options);
  if (ec) return boost::json::string(text);
  return value;
}

namespace {

std::optional<std::string> FindNonFinite(const boost::json::value& value, const std::string& path) {
  if (value.is_double()) {
    if (std::isfinite(value.get_double())) return std::nullopt;
    return path;
  }
  if (const auto* object = value.if_object()) {
    for (const auto& [key, member] : *object) {
      std::string member_path = path.empty() ? std::string(key) : path + "." + std::string(key);
      if (auto found = FindNonFinite(member, member_path)) return found;
    }
  } else if (const auto* array = value.if_array()) {
    for (size_t i = 0; i < array->size(); ++i) {
      if (auto found = FindNonFinite((*array)[i], path + "[" + std::to_string(i) + "]")) {
        return found;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> FindNonFiniteNumber(const boost::json::value& value) {
  return FindNonFinite(value, "");
}

std::string SerializeJson(const boost::json::value& value) { return boost::json::serialize(value); }

}  // namespace redrive::wire
