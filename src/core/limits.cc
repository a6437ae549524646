#include "core/limits.h"

namespace redrive {

bool IsValidQueueName(std::string_view name) {
  if (name.empty() || name.size() > kMaxQueueNameLength) return false;
  if (name.front() == '.' || name.front() == '-') return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace redrive
