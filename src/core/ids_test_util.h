// For tests: what an id looks like. Production code never checks ids' shape
// (an unknown id is simply not found), so this lives beside the tests.
#pragma once

#include <string_view>

namespace redrive {

// True for a canonical lower- or upper-case 8-4-4-4-12 hex UUID.
inline bool IsUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

}  // namespace redrive
