// Serializes a Boost.JSON value with doubles written plainly ("43.29", not
// Boost's shortest-round-trip "4.329E1"), so result lines are easy to read
// and to grep. Everything else is written exactly as boost::json::serialize.
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace redrive::bench {

// Doubles are printed with up to 3 decimals (trailing zeros dropped), which
// is all the precision the bench's rounded results carry.
std::string WriteJson(const boost::json::value& v);

}  // namespace redrive::bench
