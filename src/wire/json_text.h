// Moving JSON between its stored form (serialized text: payloads, results,
// metadata, history details) and Boost.JSON values.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace redrive::wire {

// The value `text` serializes. Text that is not valid JSON (it should never
// be: the API stores only serialized values) is embedded as a JSON string
// rather than lost.
boost::json::value EmbedJsonText(std::string_view text);

// The path ("jobs[0].payload.x") of the first number in `value` that is not
// finite, or nullopt. Boost.JSON parses a number beyond a double's range
// (1e400) as infinity, which would serialize as a different value, so
// request bodies holding one are refused rather than silently changed.
std::optional<std::string> FindNonFiniteNumber(const boost::json::value& value);

// Compact serialization, the form stored and size-checked.
std::string SerializeJson(const boost::json::value& value);

}  // namespace redrive::wire
