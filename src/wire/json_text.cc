#include "wire/json_text.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace redrive::wire {

boost::json::value EmbedJsonText(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) return boost::json::string(text);
  return value;
}

std::string SerializeJson(const boost::json::value& value) { return boost::json::serialize(value); }

}  // namespace redrive::wire
