#include "api/request_guard.h"

#include <arpa/inet.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace redrive::api {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsIpLiteral(const std::string& host) {
  std::array<unsigned char, 16> bytes{};
  return inet_pton(AF_INET, host.c_str(), bytes.data()) == 1 ||
         inet_pton(AF_INET6, host.c_str(), bytes.data()) == 1;
}

bool IsAllowedHost(const std::string& host, const HostPolicy& policy) {
  return !host.empty() && std::find(policy.allowed_hosts.begin(), policy.allowed_hosts.end(),
                                    host) != policy.allowed_hosts.end();
}

// "host[:port]" of an authority with the scheme's default port made explicit,
// lower case, so "http://a" and Host "a:80" compare equal.
std::string NormalizedAuthority(std::string_view authority, std::string_view scheme) {
  std::string out = Lower(Trim(authority));
  const size_t bracket = out.rfind(']');
  const size_t colon = out.rfind(':');
  const bool has_port =
      colon != std::string::npos && (bracket == std::string::npos || colon > bracket);
  if (!has_port) out += scheme == "https" ? ":443" : ":80";
  return out;
}

Status Refused(std::string message) { return Status(ErrorCode::kAccessDenied, std::move(message)); }

}  // namespace

std::string HostOfAuthority(std::string_view authority) {
  authority = Trim(authority);
  std::string_view host;
  if (authority.starts_with('[')) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return "";
    const std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return "";
    host = authority.substr(1, close - 1);
  } else {
    host = authority.substr(0, authority.find(':'));
    // A second colon outside brackets is no authority (RFC 3986 3.2.2).
    if (host.size() != authority.size() &&
        authority.substr(host.size() + 1).find(':') != std::string_view::npos) {
      return "";
    }
  }
  if (host.ends_with('.')) host.remove_suffix(1);
  return Lower(host);
}

Status CheckHost(const Request& request, const HostPolicy& policy) {
  const std::string* header = request.header("host");
  if (header == nullptr) return Status::Ok();
  const std::string host = HostOfAuthority(*header);
  if (host == "localhost" || IsIpLiteral(host) || host == Lower(policy.listen_host) ||
      IsAllowedHost(host, policy)) {
    return Status::Ok();
  }
  std::string shown = host.empty() ? std::string(Trim(*header)).substr(0, 100) : host;
  return Refused("Host '" + shown +
                 "' is not an expected name of this server (without API keys it answers only "
                 "localhost, IP addresses and its --listen host, as a guard against DNS "
                 "rebinding); start it with --allowed-host " +
                 (host.empty() ? std::string("NAME") : host) + " to accept this name");
}

bool IsMutatingMethod(std::string_view method) {
  return method != "GET" && method != "HEAD" && method != "OPTIONS";
}

Status CheckSameOrigin(const Request& request, const HostPolicy& policy) {
  if (const std::string* site = request.header("sec-fetch-site")) {
    const std::string value = Lower(Trim(*site));
    if (value == "cross-site" || value == "same-site") {
      return Refused(
          "cross-origin request refused: the browser says it comes from another "
          "site (Sec-Fetch-Site: " +
          value + ")");
    }
  }
  const std::string* origin_header = request.header("origin");
  if (origin_header == nullptr) return Status::Ok();
  const std::string origin = Lower(Trim(*origin_header));
  const std::string shown = origin.substr(0, 200);
  const size_t scheme_end = origin.find("://");
  if (scheme_end != std::string::npos) {
    const std::string scheme = origin.substr(0, scheme_end);
    const std::string authority = origin.substr(scheme_end + 3);
    if ((scheme == "http" || scheme == "https") && authority.find('/') == std::string::npos) {
      const std::string* host = request.header("host");
      if (host != nullptr &&
          NormalizedAuthority(authority, scheme) == NormalizedAuthority(*host, scheme)) {
        return Status::Ok();
      }
      // Behind a proxy that rewrites Host, the public name is an allowed
      // host (the operator's explicit choice; the listen host is not enough:
      // another local server's page would pass).
      if (IsAllowedHost(HostOfAuthority(authority), policy)) return Status::Ok();
    }
  }
  return Refused("cross-origin request refused: Origin '" + shown +
                 "' is not this server; a state change must come from the server's own "
                 "pages or from a client that is not a browser");
}

}  // namespace redrive::api
