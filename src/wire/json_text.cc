#include "wire/json_text.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

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

std::string SerializeJson(const boost::json::value& value) { return boost::json::serialize(value); }

}  // namespace redrive::wire
