// The server address a Client talks to, parsed from "http://host:port[/base]".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace redrive::sdk {

struct ServerUrl {
  std::string host;         // a name, an IPv4 address, or an IPv6 address without brackets
  uint16_t port = 7070;     // default when the URL names none: 80 would surprise Redrive users
  std::string base_path;    // "" or "/prefix", for a server behind a path-routing proxy
  std::string host_header;  // the Host header: "host:port"
};

// Only plain http is supported (no TLS in the SDK: put a sidecar in front).
Result<ServerUrl> ParseServerUrl(std::string_view url);

// Percent-encodes a query-string value (RFC 3986 unreserved kept).
std::string UrlEncode(std::string_view value);

}  // namespace redrive::sdk
