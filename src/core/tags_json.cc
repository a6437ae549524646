#include "core/tags_json.h"

#include <cstdint>

#include "core/json_text.h"

namespace redrive {
namespace {

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// A cursor over JSON text; each Parse* consumes what it recognised.
class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == s_.size();
  }

  std::optional<std::string> ParseString() {
    if (!Consume('"')) return std::nullopt;
    std::string out;
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) return std::nullopt;
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::optional<uint32_t> cp = ParseCodePoint();
          if (!cp) return std::nullopt;
          AppendUtf8(out, *cp);
          break;
        }
        default:
          return std::nullopt;
      }
    }
    return std::nullopt;  // unterminated
  }

 private:
  std::optional<uint32_t> ParseHex4() {
    if (s_.size() - pos_ < 4) return std::nullopt;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= c - '0';
      else if (c >= 'a' && c <= 'f')
        v |= c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        v |= c - 'A' + 10;
      else
        return std::nullopt;
    }
    return v;
  }
  // After "\u": one code unit, or a surrogate pair "\uD8xx\uDCxx".
  std::optional<uint32_t> ParseCodePoint() {
    std::optional<uint32_t> hi = ParseHex4();
    if (!hi) return std::nullopt;
    if (*hi < 0xd800 || *hi > 0xdfff) return hi;
    if (*hi > 0xdbff || s_.substr(pos_, 2) != "\\u") return std::nullopt;
    pos_ += 2;
    std::optional<uint32_t> lo = ParseHex4();
    if (!lo || *lo < 0xdc00 || *lo > 0xdfff) return std::nullopt;
    return 0x10000 + ((*hi - 0xd800) << 10) + (*lo - 0xdc00);
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::string EncodeTagsJson(const Tags& tags) {
  std::string out = "{";
  for (const auto& [key, value] : tags) {
    if (out.size() > 1) out += ',';
    out += JsonQuote(key);
    out += ':';
    out += JsonQuote(value);
  }
  out += '}';
  return out;
}

std::optional<Tags> DecodeTagsJson(std::string_view json) {
  Parser p(json);
  Tags tags;
  if (!p.Consume('{')) return std::nullopt;
  if (!p.Consume('}')) {
    do {
      std::optional<std::string> key = p.ParseString();
      if (!key || !p.Consume(':')) return std::nullopt;
      std::optional<std::string> value = p.ParseString();
      if (!value) return std::nullopt;
      tags.insert_or_assign(std::move(*key), std::move(*value));
    } while (p.Consume(','));
    if (!p.Consume('}')) return std::nullopt;
  }
  if (!p.AtEnd()) return std::nullopt;
  return tags;
}

std::string EncodeStringArrayJson(const std::vector<std::string>& values) {
  std::string out = "[";
  for (const std::string& v : values) {
    if (out.size() > 1) out += ',';
    out += JsonQuote(v);
  }
  out += ']';
  return out;
}

}  // namespace redrive
