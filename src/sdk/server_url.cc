#include "sdk/server_url.h"

#include <cctype>
#include <charconv>

namespace redrive::sdk {

Result<ServerUrl> ParseServerUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  auto bad = [&](const std::string& why) {
    return Status::Validation("server_url",
                              "invalid server URL \"" + std::string(url) + "\": " + why);
  };
  if (url.substr(0, kScheme.size()) != kScheme) {
    return bad(url.substr(0, 8) == "https://" ? "https is not supported; use http://"
                                              : "must start with http://");
  }
  std::string_view rest = url.substr(kScheme.size());
  ServerUrl out;
  size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    out.base_path = std::string(rest.substr(slash));
    while (!out.base_path.empty() && out.base_path.back() == '/') out.base_path.pop_back();
  }
  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {  // [::1]:7070
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed [");
    out.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return bad("junk after ]");
      port_text = after.substr(1);
    }
  } else {
    size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port_text = authority.substr(colon + 1);
  }
  if (out.host.empty()) return bad("no host");
  if (!port_text.empty()) {
    unsigned port = 0;
    auto [p, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || p != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
      return bad("bad port");
    }
    out.port = static_cast<uint16_t>(port);
  }
  out.host_header = (out.host.find(':') != std::string::npos ? "[" + out.host + "]" : out.host) +
                    ":" + std::to_string(out.port);
  return out;
}

std::string UrlEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

}  // namespace redrive::sdk
