#include "sdk/http_response_head.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace redrive::sdk {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// True if the comma-separated header value lists `token` (case-insensitive).
bool HasToken(std::string_view value, std::string_view token) {
  while (!value.empty()) {
    size_t comma = value.find(',');
    if (EqualsIgnoreCase(Trim(value.substr(0, comma)), token)) return true;
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return false;
}

std::optional<size_t> ParseDecimal(std::string_view s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  size_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  return v;
}

}  // namespace

Result<ResponseHead> ParseResponseHead(std::string_view head) {
  size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  // "HTTP/1.1 200 OK": the version, one space, three digits.
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." || status_line[8] != ' ') {
    return Status::Unavailable("malformed status line: " + std::string(status_line.substr(0, 80)));
  }
  ResponseHead out;
  out.keep_alive = status_line[7] == '1';
  std::optional<size_t> code = ParseDecimal(status_line.substr(9, 3));
  if (!code || *code < 100 || *code > 599) {
    return Status::Unavailable("malformed status code: " + std::string(status_line.substr(0, 80)));
  }
  out.status = static_cast<int>(*code);
  std::string_view rest = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
  while (!rest.empty()) {
    eol = rest.find("\r\n");
    std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 2);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Status::Unavailable("malformed header line");
    std::string_view name = Trim(line.substr(0, colon));
    std::string_view value = Trim(line.substr(colon + 1));
    if (EqualsIgnoreCase(name, "content-length")) {
      out.content_length = ParseDecimal(value);
      if (!out.content_length) return Status::Unavailable("malformed Content-Length");
    } else if (EqualsIgnoreCase(name, "transfer-encoding")) {
      out.chunked = HasToken(value, "chunked");
    } else if (EqualsIgnoreCase(name, "connection")) {
      if (HasToken(value, "close")) out.keep_alive = false;
      if (HasToken(value, "keep-alive")) out.keep_alive = true;
    }
  }
  return out;
}

std::optional<size_t> ParseChunkSize(std::string_view line) {
  line = Trim(line.substr(0, line.find(';')));
  if (line.empty() || line.size() > 15) return std::nullopt;
  size_t v = 0;
  for (char c : line) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
            : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                        : -1;
    if (d < 0) return std::nullopt;
    v = v * 16 + static_cast<size_t>(d);
  }
  return v;
}

}  // namespace redrive::sdk
