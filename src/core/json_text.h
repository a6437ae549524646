// Minimal JSON text building for the core's history details. The core has no
// JSON library dependency; the wire layer (Boost.JSON) parses these back.
#pragma once

#include <string>
#include <string_view>

namespace redrive {

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view s);

// Appends "key": value pairs into a JSON object text.
class JsonObjectText {
 public:
  JsonObjectText& Str(std::string_view key, std::string_view value);
  JsonObjectText& Int(std::string_view key, long long value);
  JsonObjectText& Raw(std::string_view key, std::string_view json);  // value already JSON
  std::string Build() const { return "{" + body_ + "}"; }

 private:
  void Key(std::string_view key);
  std::string body_;
};

}  // namespace redrive
