// Cutting text to a byte budget without splitting a UTF-8 character: the
// API refuses JSON strings that are not UTF-8, so every cut text (a stored
// error, a CLI command's stdout and stderr) must stay valid.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace redrive {

// The longest prefix of `text` of at most `max_bytes` bytes that ends on a
// character boundary (`text` itself when it fits).
std::string Utf8Prefix(std::string_view text, size_t max_bytes);

// The longest suffix of `text` of at most `max_bytes` bytes that starts on
// a character boundary (`text` itself when it fits).
std::string Utf8Suffix(std::string_view text, size_t max_bytes);

// `text` with each byte that does not begin a well-formed UTF-8 sequence
// (stray or missing continuation bytes, overlong forms, surrogates, code
// points past U+10FFFF) replaced by U+FFFD. Error bodies echo client bytes
// (percent-decoded path parameters) through this, so they stay valid JSON.
std::string ValidUtf8(std::string_view text);

}  // namespace redrive
