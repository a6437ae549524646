// Lenient reads of a JSON object the server produced, for decoders (the SDK's
// direction: JSON → core types). An absent, null or wrongly-typed member reads
// as "not there", so a newer server that adds or drops an optional field does
// not break an older client; decoders check only what identifies an object.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/job.h"

namespace redrive::wire {

std::optional<std::string> ReadString(const boost::json::object& o, std::string_view key);
std::string ReadStringOr(const boost::json::object& o, std::string_view key,
                         std::string fallback = {});
// The member as an int64: an integer, or a double inside int64's range
// (truncated); unset for anything else, a number out of range included.
std::optional<int64_t> ReadInt(const boost::json::object& o, std::string_view key);
int64_t ReadIntOr(const boost::json::object& o, std::string_view key, int64_t fallback);
bool ReadBoolOr(const boost::json::object& o, std::string_view key, bool fallback);
std::optional<Instant> ReadTime(const boost::json::object& o, std::string_view key);
// The member as a JSON object, or nullptr.
const boost::json::object* ReadObject(const boost::json::object& o, std::string_view key);
Tags ReadTags(const boost::json::object& o, std::string_view key);

}  // namespace redrive::wire
