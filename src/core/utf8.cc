#include "core/utf8.h"

namespace redrive {
namespace {

// UTF-8 continuation bytes are 10xxxxxx; a character starts at any other.
bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string Utf8Prefix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  while (end > 0 && IsContinuation(text[end])) --end;
  return std::string(text.substr(0, end));
}

std::string Utf8Suffix(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t start = text.size() - max_bytes;
  while (start < text.size() && IsContinuation(text[start])) ++start;
  return std::string(text.substr(start));
}

}  // namespace redrive
