// How both stores keep the fields of a bulk operation and of an auto-redrive
// state that SQL has no type for (sqlite/operation_sql.cc,
// sqlite/autoredrive_sql.cc and their postgres/ twins): written once here so
// the two stores cannot drift apart. Kept out of core/operation.h so a
// change here rebuilds only the stores.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace redrive {

// A selector's job ids, newline-separated (the API refuses control
// characters in them, so a newline never occurs inside one).
std::string JoinIds(const std::vector<std::string>& ids);
// JoinIds' inverse; "" is no ids.
std::vector<std::string> SplitIds(std::string_view text);

// A rate as its shortest text that reads back to the same double ("%.17g").
std::string RateText(double rate);
// RateText's inverse (0 for text that is no number).
double ParseRateText(const std::string& text);

}  // namespace redrive
