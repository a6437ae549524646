// Which addresses a webhook may be POSTed to. Pure (no I/O, no resolver):
// the classification of IPv4 and IPv6 addresses after the IANA
// special-purpose registries, and the parsing of a URL host that is an IP
// literal in any notation a resolver accepts ("127.0.0.1", "2130706433",
// "127.1", "0x7f.1", "[::ffff:127.0.0.1]").
//
// Two callers apply it: the sender, at send time, to every address the name
// resolved to (the only ones it connects to, so DNS rebinding between a check
// and the connect cannot reach a refused address); and the API, at creation,
// to refuse a URL whose host is a literal refused address.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace redrive::engine {

// An IPv4 or IPv6 address in network byte order (IPv4: the first 4 bytes).
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};

  static IpAddress V4(uint32_t host_order);
  static IpAddress V6(const std::array<uint8_t, 16>& bytes);
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// What an address is. Only kGlobal is reachable on the public internet.
enum class AddressClass {
  kGlobal,
  kUnspecified,    // 0.0.0.0/8, ::
  kLoopback,       // 127.0.0.0/8, ::1
  kPrivate,        // RFC 1918, fc00::/7 (ULA)
  kSharedCgnat,    // 100.64.0.0/10
  kLinkLocal,      // 169.254.0.0/16 (cloud metadata), fe80::/10
  kMulticast,      // 224.0.0.0/4, ff00::/8
  kBroadcast,      // 255.255.255.255
  kDocumentation,  // TEST-NET-1..3, 2001:db8::/32, 3fff::/20
  kReserved,       // every other special-purpose or unallocated range
};
const char* AddressClassName(AddressClass c);  // "loopback", "private", ...

// IPv4-mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96) and 6to4 (2002::/16)
// addresses are classified by the IPv4 address they carry.
AddressClass ClassifyAddress(const IpAddress& address);
inline bool IsGlobalAddress(const IpAddress& address) {
  return ClassifyAddress(address) == AddressClass::kGlobal;
}

// The address a URL host denotes when it is an IP literal: IPv4 in the forms
// of inet_aton and the URL standard (1 to 4 parts, each decimal, octal with a
// leading 0 or hex with 0x, the last filling the remaining bytes; one
// trailing dot), or IPv6 with or without brackets and a zone ("%eth0",
// "%25eth0"). nullopt for a host name.
std::optional<IpAddress> ParseIpLiteral(std::string_view host);

// The class of a URL host known without resolving it: that of an IP
// literal, kLoopback for "localhost" and names under ".localhost" (RFC 6761),
// nullopt for any other name (known only once resolved, at send time).
std::optional<AddressClass> ClassifyLiteralHost(std::string_view host);

// The error recorded for an attempt refused because no address of its target
// is allowed; deliberately the same whatever the address was.
inline constexpr std::string_view kTargetNotAllowedError = "target address not allowed";

}  // namespace redrive::engine
