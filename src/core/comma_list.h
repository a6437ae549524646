// A list of names kept in one text column as "a,b,c" (a webhook's events, an
// API key's queues). The names never contain a comma: each is validated
// before it is stored (event names, queue names).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace redrive {

// "a,b,c"; "" for no names.
std::string JoinCommaList(const std::vector<std::string>& names);
// The inverse of JoinCommaList: "" gives no names.
std::vector<std::string> SplitCommaList(std::string_view text);

}  // namespace redrive
