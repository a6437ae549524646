// Checks on a request's head that protect the people whose browsers can reach
// the server, not the server itself:
//
// - Cross-origin state changes (CSRF). A web page on any site can make a
//   browser send a "simple" POST (text/plain, no preflight) to the server; it
//   cannot read the answer, but the change is made. Browsers label such
//   requests with Origin and Sec-Fetch-Site, so a mutating request whose
//   Origin is not this server, or whose Sec-Fetch-Site is cross-site or
//   same-site, is refused. Clients that are not browsers (curl, the SDKs)
//   send neither header and are unaffected.
// - DNS rebinding. A page on a name its owner re-points at 127.0.0.1 becomes
//   same-origin with the server and could read and write everything — but
//   its requests carry that name in Host. Without API keys only expected
//   Host values are served.
//
// Pure functions, no I/O; api.cc decides when each applies.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/http_types.h"
#include "core/status.h"

namespace redrive::api {

struct HostPolicy {
  std::string listen_host;                 // the --listen host, always allowed
  std::vector<std::string> allowed_hosts;  // --allowed-host values, lower case
};

// The host part of a Host header or of an origin's authority, lower case,
// without port, brackets or a trailing dot; empty when it does not parse.
std::string HostOfAuthority(std::string_view authority);

// OK when the request's Host names this server: a loopback name (localhost),
// an IP literal (a rebinding page always uses a name), the listen host or an
// allowed host, with any port. A request without Host (HTTP/1.0) passes: it
// does not come from a browser. ACCESS_DENIED naming --allowed-host otherwise.
Status CheckHost(const Request& request, const HostPolicy& policy);

// True for methods that may change state (all but GET, HEAD and OPTIONS).
bool IsMutatingMethod(std::string_view method);

// OK unless the request says it comes from another site: Sec-Fetch-Site is
// cross-site or same-site, or Origin is present and neither matches Host nor
// names an allowed host. ACCESS_DENIED otherwise. Origin and Host compare by
// host and port, a missing port being the scheme's default; schemes are not
// compared, since behind a TLS proxy the server cannot know its own.
Status CheckSameOrigin(const Request& request, const HostPolicy& policy);

}  // namespace redrive::api
