// Moving JSON between its stored form (serialized text: payloads, results,
// metadata, history details) and Boost.JSON values.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

namespace redrive::wire {

// The value `text` serializes. Text that is not valid JSON (it should never
// be: the API stores only serialized values) is embedded as a JSON string
// rather than lost.
boost::json::value EmbedJsonText(std::string_view text);

// Compact serialization, the form stored and size-checked.
std::string SerializeJson(const boost::json::value& value);

}  // namespace redrive::wire
