#include "core/error_fingerprint.h"

#include <array>
#include <cstdint>

#include "core/utf8.h"

namespace redrive {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsDigit(c) || IsAlpha(c); }
bool IsHex(char c) { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Words after which an integer is a code, kept as written.
constexpr std::array<std::string_view, 14> kCodeWords = {
    "status", "status_code", "statuscode", "code",     "sqlstate", "errno",     "exit",
    "signal", "error",       "err",        "upstream", "returned", "responded", "response"};

// A token found at a position: how many bytes it spans and what replaces them
// (empty: the bytes are copied as written).
struct Token {
  size_t length = 0;
  std::string_view placeholder;
  bool number = false;  // digits to rewrite as <n>, units kept (RewriteNumbers)
};

std::string RewriteNumbers(std::string_view span);

class Normalizer {
 public:
  explicit Normalizer(std::string_view in) : in_(in) {}

  std::string Run() {
    std::string out;
    out.reserve(in_.size());
    bool space = false;
    size_t p = 0;
    while (p < in_.size()) {
      if (IsSpace(in_[p])) {
        space = true;
        ++p;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      const Token t = TokenAt(p);
      if (t.length > 0) {
        if (t.number) {
          out += RewriteNumbers(in_.substr(p, t.length));
        } else if (t.placeholder.empty()) {
          out.append(in_.substr(p, t.length));
        } else {
          out += t.placeholder;
        }
        p += t.length;
      } else if (IsAlnum(in_[p])) {
        // A word that starts no token is copied whole: digits inside it
        // (sha256, utf8, v2) are part of the word, not numbers.
        size_t e = p;
        while (e < in_.size() && IsAlnum(in_[e])) ++e;
        out.append(in_.substr(p, e - p));
        p = e;
      } else {
        out += in_[p++];
      }
    }
    return out;
  }

 private:
  char At(size_t i) const { return i < in_.size() ? in_[i] : '\0'; }
  // True when a token may start at p: the byte before is not part of a word.
  bool WordStart(size_t p) const { return p == 0 || !IsAlnum(in_[p - 1]); }
  bool WordEnd(size_t e) const { return !IsAlnum(At(e)); }

  size_t Digits(size_t p, size_t min, size_t max) const {
    size_t e = p;
    while (e < in_.size() && e - p < max && IsDigit(in_[e])) ++e;
    return e - p >= min ? e - p : 0;
  }
  size_t HexRun(size_t p) const {
    size_t e = p;
    while (e < in_.size() && IsHex(in_[e])) ++e;
    return e - p;
  }

  Token TokenAt(size_t p) const {
    const char c = in_[p];
    if (c == '\'' || c == '"' || c == '`') return {Quoted(p), "<str>"};
    if (c == '[' || c == ':') return {Ipv6(p), "<ip>"};
    if (!IsAlnum(c) || !WordStart(p)) return {};
    if (size_t n = Uuid(p)) return {n, "<uuid>"};
    if (size_t n = Time(p)) return {n, "<time>"};
    if (size_t n = Ipv4(p)) return {n, "<ip>"};
    if (size_t n = Ipv6(p)) return {n, "<ip>"};
    if (size_t n = HexNumber(p)) return {n, "<hex>"};
    if (size_t n = HexWord(p)) return {n, "<hex>"};
    if (size_t n = IdWord(p)) return {n, "<id>"};
    return Number(p);
  }

  // '…', "…" or `…`, opened where no word precedes (not the apostrophe of
  // "can't") and closed by the same quote where no word follows. A quote
  // escaped with a backslash does not close.
  size_t Quoted(size_t p) const {
    const char q = in_[p];
    if (p > 0 && IsAlnum(in_[p - 1])) return 0;
    for (size_t k = p + 1; k < in_.size(); ++k) {
      if (in_[k] == q && in_[k - 1] != '\\' && !IsAlnum(At(k + 1))) return k + 1 - p;
    }
    return 0;
  }

  size_t Uuid(size_t p) const {
    static constexpr std::array<size_t, 5> kGroups = {8, 4, 4, 4, 12};
    size_t e = p;
    for (size_t g = 0; g < kGroups.size(); ++g) {
      if (g > 0) {
        if (At(e) != '-') return 0;
        ++e;
      }
      for (size_t i = 0; i < kGroups[g]; ++i, ++e) {
        if (!IsHex(At(e))) return 0;
      }
    }
    return WordEnd(e) ? e - p : 0;
  }

  // hh:mm[:ss[.frac]] at p; 0 if none.
  size_t Clock(size_t p, bool need_seconds) const {
    size_t e = p;
    size_t h = Digits(e, 1, 2);
    if (h == 0 || At(e + h) != ':') return 0;
    e += h + 1;
    if (Digits(e, 2, 2) == 0) return 0;
    e += 2;
    if (At(e) == ':' && Digits(e + 1, 2, 2) == 2) {
      e += 3;
      if ((At(e) == '.' || At(e) == ',') && IsDigit(At(e + 1))) {
        ++e;
        while (IsDigit(At(e))) ++e;
      }
    } else if (need_seconds) {
      return 0;
    }
    return e - p;
  }

  // Z, z, +hh, +hh:mm, -hhmm after a time; 0 if none.
  size_t Zone(size_t e) const {
    if (At(e) == 'Z' || At(e) == 'z') return WordEnd(e + 1) ? 1 : 0;
    if (At(e) != '+' && At(e) != '-') return 0;
    if (Digits(e + 1, 2, 2) != 2) return 0;
    size_t n = 3;
    if (At(e + n) == ':' && Digits(e + n + 1, 2, 2) == 2) {
      n += 3;
    } else if (Digits(e + n, 2, 2) == 2) {
      n += 2;
    }
    return n;
  }

  // yyyy-mm-dd[(T|t| )hh:mm[:ss[.frac]]][zone], or a bare hh:mm:ss[.frac][zone].
  size_t Time(size_t p) const {
    size_t e = p;
    if (Digits(p, 4, 4) == 4 && At(p + 4) == '-' && Digits(p + 5, 2, 2) == 2 && At(p + 7) == '-' &&
        Digits(p + 8, 2, 2) == 2 && !IsDigit(At(p + 10))) {
      e = p + 10;
      const char sep = At(e);
      if (sep == 'T' || sep == 't' || sep == ' ') {
        if (size_t n = Clock(e + 1, false)) e += 1 + n;
      }
    } else if (size_t n = Clock(p, true)) {
      e = p + n;
    } else {
      return 0;
    }
    e += Zone(e);
    return WordEnd(e) ? e - p : 0;
  }

  // a.b.c.d (each 1-3 digits), optionally :port or /prefix.
  size_t Ipv4(size_t p) const {
    size_t e = p;
    for (int part = 0; part < 4; ++part) {
      if (part > 0) {
        if (At(e) != '.') return 0;
        ++e;
      }
      size_t n = Digits(e, 1, 3);
      if (n == 0) return 0;
      e += n;
    }
    if (IsDigit(At(e)) || (At(e) == '.' && IsDigit(At(e + 1)))) return 0;
    if ((At(e) == ':' || At(e) == '/') && IsDigit(At(e + 1))) {
      e += 1 + Digits(e + 1, 1, 5);
    }
    return WordEnd(e) ? e - p : 0;
  }

  // An IPv6 address: hex groups of at most 4 digits joined by colons, with
  // one "::" or all eight groups (an embedded IPv4 tail and a %zone allowed),
  // or the same in brackets with an optional :port.
  size_t Ipv6(size_t p) const {
    if (p > 0 && (IsAlnum(in_[p - 1]) || in_[p - 1] == ':')) return 0;
    if (At(p) == '[') {
      size_t n = BareIpv6(p + 1);
      if (n == 0 || At(p + 1 + n) != ']') return 0;
      size_t e = p + 2 + n;
      if (At(e) == ':' && IsDigit(At(e + 1))) e += 1 + Digits(e + 1, 1, 5);
      return e - p;
    }
    return BareIpv6(p);
  }

  size_t BareIpv6(size_t p) const {
    size_t e = p, colons = 0, groups = 0;
    bool double_colon = false, digit = false;
    while (true) {
      size_t n = HexRun(e);
      if (n > 4) return 0;
      if (n > 0) {
        ++groups;
        for (size_t i = e; i < e + n; ++i) digit = digit || IsDigit(in_[i]);
        e += n;
      }
      if (At(e) != ':') break;
      if (At(e + 1) == ':') {
        if (double_colon) return 0;
        double_colon = true;
        colons += 2;
        e += 2;
      } else {
        if (n == 0 && !(e >= 2 && in_[e - 1] == ':')) return 0;
        ++colons;
        ++e;
      }
    }
    if (At(e) == '.' && groups > 0) {
      // An embedded IPv4 tail (::ffff:10.0.0.1): the last group was its first part.
      size_t back = e;
      while (back > p && IsDigit(in_[back - 1])) --back;
      size_t v4 = Ipv4(back);
      if (v4 == 0) return 0;
      e = back + v4;
    }
    if (colons < 2 || (!double_colon && colons != 7) || (!digit && groups > 0 && !double_colon)) {
      return 0;
    }
    if (groups == 0 && !double_colon) return 0;
    if (At(e) == '%' && IsAlnum(At(e + 1))) {
      ++e;
      while (IsAlnum(At(e))) ++e;
    }
    return WordEnd(e) ? e - p : 0;
  }

  // 0x followed by hex digits.
  size_t HexNumber(size_t p) const {
    if (At(p) != '0' || (At(p + 1) != 'x' && At(p + 1) != 'X')) return 0;
    size_t n = HexRun(p + 2);
    return n > 0 && WordEnd(p + 2 + n) ? n + 2 : 0;
  }

  // A word of 8+ hex digits holding at least one digit and one letter
  // (all digits is a number).
  size_t HexWord(size_t p) const {
    size_t n = HexRun(p);
    if (n < 8 || !WordEnd(p + n)) return 0;
    bool digit = false, letter = false;
    for (size_t i = p; i < p + n; ++i) (IsDigit(in_[i]) ? digit : letter) = true;
    return digit && letter ? n : 0;
  }

  // A word of 16+ letters, digits and underscores with 2+ digits and a
  // letter: generated ids (ULIDs, API object ids, tokens), not English.
  size_t IdWord(size_t p) const {
    size_t e = p, digits = 0, letters = 0;
    while (IsAlnum(At(e)) || At(e) == '_') {
      (IsDigit(in_[e]) ? digits : letters) += 1;
      ++e;
    }
    return e - p >= 16 && digits >= 2 && letters >= 1 ? e - p : 0;
  }

  // A number (1, 1.5, 1.2.3, 1e-3) followed by an optional unit of letters,
  // repeated for compound durations (1h30m): each number becomes <n>, each
  // unit stays. An integer after a code word is kept as written.
  Token Number(size_t p) const {
    if (!IsDigit(in_[p])) return {};
    if (size_t n = CodeInteger(p)) return {n, ""};
    size_t e = p;
    while (IsDigit(At(e))) {
      while (IsDigit(At(e))) ++e;
      while (At(e) == '.' && IsDigit(At(e + 1))) {
        e += 2;
        while (IsDigit(At(e))) ++e;
      }
      if ((At(e) == 'e' || At(e) == 'E') &&
          (IsDigit(At(e + 1)) || ((At(e + 1) == '-' || At(e + 1) == '+') && IsDigit(At(e + 2))))) {
        e += 2;
        while (IsDigit(At(e))) ++e;
      }
      while (IsAlpha(At(e))) ++e;
    }
    return {e - p, "", true};
  }

  // An integer of at most 6 digits, not part of a decimal or a unit, after a
  // word naming a code; 0 if not.
  size_t CodeInteger(size_t p) const {
    size_t n = Digits(p, 1, 7);
    if (n == 0 || n > 6 || IsAlnum(At(p + n)) || (At(p + n) == '.' && IsDigit(At(p + n + 1)))) {
      return 0;
    }
    size_t i = p;
    while (i > 0 && (IsSpace(in_[i - 1]) || in_[i - 1] == ':' || in_[i - 1] == '=' ||
                     in_[i - 1] == '#' || in_[i - 1] == '(' || in_[i - 1] == '[')) {
      --i;
    }
    size_t end = i;
    // The word may hold a placeholder (HTTP/<n>): normalizing stays idempotent.
    while (i > 0 && (IsAlnum(in_[i - 1]) || in_[i - 1] == '_' || in_[i - 1] == '/' ||
                     in_[i - 1] == '.' || in_[i - 1] == '<' || in_[i - 1] == '>')) {
      --i;
    }
    if (i == end || end == p) return 0;
    std::string word;
    for (size_t k = i; k < end; ++k) word += Lower(in_[k]);
    if (word.rfind("http", 0) == 0) return n;
    for (std::string_view w : kCodeWords) {
      if (word == w) return n;
    }
    return 0;
  }

  std::string_view in_;
};

// Numbers come back from TokenAt as spans to rewrite: each digit run (with
// its decimals and exponent) becomes <n>, letters between them stay.
std::string RewriteNumbers(std::string_view span) {
  std::string out;
  size_t i = 0;
  while (i < span.size()) {
    if (!IsDigit(span[i])) {
      out += span[i++];
      continue;
    }
    while (i < span.size() && IsDigit(span[i])) ++i;
    while (i + 1 < span.size() && span[i] == '.' && IsDigit(span[i + 1])) {
      i += 2;
      while (i < span.size() && IsDigit(span[i])) ++i;
    }
    if (i + 1 < span.size() && (span[i] == 'e' || span[i] == 'E') &&
        (IsDigit(span[i + 1]) ||
         (i + 2 < span.size() && (span[i + 1] == '-' || span[i + 1] == '+') &&
          IsDigit(span[i + 2])))) {
      i += 2;
      while (i < span.size() && IsDigit(span[i])) ++i;
    }
    out += "<n>";
  }
  return out;
}

}  // namespace

std::string NormalizeError(std::string_view error) {
  const std::string input = Utf8Prefix(error, kFingerprintInputBytes);
  return Utf8Prefix(Normalizer(input).Run(), kNormalizedErrorMaxBytes);
}

std::string Fnv1a64Hex(std::string_view bytes) {
  uint64_t h = 14695981039346656037ULL;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(kFingerprintChars, '0');
  for (size_t i = 0; i < kFingerprintChars; ++i) {
    out[kFingerprintChars - 1 - i] = kDigits[h & 0xf];
    h >>= 4;
  }
  return out;
}

std::string ErrorFingerprint(std::string_view error) { return Fnv1a64Hex(NormalizeError(error)); }

bool IsErrorFingerprint(std::string_view text) {
  if (text.size() != kFingerprintChars) return false;
  for (char c : text) {
    if (!IsDigit(c) && !(c >= 'a' && c <= 'f')) return false;
  }
  return true;
}

}  // namespace redrive
