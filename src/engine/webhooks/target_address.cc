#include "engine/webhooks/target_address.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cstring>
#include <string>
#include <vector>

namespace redrive::engine {
namespace {

// True when the top `bits` bits of `a` equal those of `prefix`.
constexpr bool InV4(uint32_t a, uint32_t prefix, int bits) {
  const uint32_t mask = bits == 0 ? 0 : ~uint32_t{0} << (32 - bits);
  return (a & mask) == (prefix & mask);
}

constexpr uint32_t V4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return a << 24 | b << 16 | c << 8 | d;
}

AddressClass ClassifyV4(uint32_t a) {
  struct Range {
    uint32_t prefix;
    int bits;
    AddressClass cls;
  };
  // The IANA IPv4 special-purpose registry, plus multicast and 240/4.
  static constexpr Range kRanges[] = {
      {V4(0, 0, 0, 0), 8, AddressClass::kUnspecified},  // "this network"; 0.0.0.0 is local
      {V4(10, 0, 0, 0), 8, AddressClass::kPrivate},
      {V4(100, 64, 0, 0), 10, AddressClass::kSharedCgnat},
      {V4(127, 0, 0, 0), 8, AddressClass::kLoopback},
      {V4(169, 254, 0, 0), 16, AddressClass::kLinkLocal},
      {V4(172, 16, 0, 0), 12, AddressClass::kPrivate},
      {V4(192, 0, 0, 0), 24, AddressClass::kReserved},  // IETF protocol assignments
      {V4(192, 0, 2, 0), 24, AddressClass::kDocumentation},
      {V4(192, 31, 196, 0), 24, AddressClass::kReserved},  // AS112-v4
      {V4(192, 52, 193, 0), 24, AddressClass::kReserved},  // AMT
      {V4(192, 88, 99, 0), 24, AddressClass::kReserved},   // 6to4 relay anycast
      {V4(192, 168, 0, 0), 16, AddressClass::kPrivate},
      {V4(192, 175, 48, 0), 24, AddressClass::kReserved},  // direct delegation AS112
      {V4(198, 18, 0, 0), 15, AddressClass::kReserved},    // benchmarking
      {V4(198, 51, 100, 0), 24, AddressClass::kDocumentation},
      {V4(203, 0, 113, 0), 24, AddressClass::kDocumentation},
      {V4(224, 0, 0, 0), 4, AddressClass::kMulticast},
      {V4(255, 255, 255, 255), 32, AddressClass::kBroadcast},
      {V4(240, 0, 0, 0), 4, AddressClass::kReserved},  // after broadcast, which it holds
  };
  for (const Range& r : kRanges) {
    if (InV4(a, r.prefix, r.bits)) return r.cls;
  }
  return AddressClass::kGlobal;
}

uint32_t V4At(const std::array<uint8_t, 16>& b, size_t at) {
  return uint32_t{b[at]} << 24 | uint32_t{b[at + 1]} << 16 | uint32_t{b[at + 2]} << 8 |
         uint32_t{b[at + 3]};
}

// True when the top `bits` bits of `b` equal those of `prefix` (bits % 8 == 0
// or the last byte compared under a mask).
bool InV6(const std::array<uint8_t, 16>& b, std::initializer_list<uint8_t> prefix, int bits) {
  int i = 0;
  for (uint8_t p : prefix) {
    const int left = bits - 8 * i;
    if (left <= 0) break;
    const uint8_t mask = left >= 8 ? 0xff : static_cast<uint8_t>(0xff << (8 - left));
    if ((b[i] & mask) != (p & mask)) return false;
    ++i;
  }
  return true;
}

AddressClass ClassifyV6(const std::array<uint8_t, 16>& b) {
  static constexpr std::array<uint8_t, 16> kZero{};
  std::array<uint8_t, 16> one{};
  one[15] = 1;
  if (b == kZero) return AddressClass::kUnspecified;
  if (b == one) return AddressClass::kLoopback;
  // Addresses carrying an IPv4 address reach it (mapped: on this host's
  // dual-stack socket; NAT64 and 6to4: through a gateway).
  if (InV6(b, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}, 96)) return ClassifyV4(V4At(b, 12));
  if (InV6(b, {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}, 96)) {
    return ClassifyV4(V4At(b, 12));
  }
  if (InV6(b, {0x20, 0x02}, 16)) return ClassifyV4(V4At(b, 2));
  if (InV6(b, {0xfc}, 7)) return AddressClass::kPrivate;
  if (InV6(b, {0xfe, 0x80}, 10)) return AddressClass::kLinkLocal;
  if (InV6(b, {0xff}, 8)) return AddressClass::kMulticast;
  if (InV6(b, {0x20, 0x01, 0x0d, 0xb8}, 32)) return AddressClass::kDocumentation;
  if (InV6(b, {0x3f, 0xff, 0x00}, 20)) return AddressClass::kDocumentation;
  // IETF protocol assignments (Teredo, ORCHID, benchmarking, ...).
  if (InV6(b, {0x20, 0x01, 0x00}, 23)) return AddressClass::kReserved;
  // Only 2000::/3 is allocated global unicast; everything else (::/8's
  // compatible and translated forms, 100::/64 discard, 5f00::/16 SRv6,
  // fec0::/10 site-local, unallocated space) is not reachable publicly.
  if (!InV6(b, {0x20}, 3)) return AddressClass::kReserved;
  return AddressClass::kGlobal;
}

// One part of a loose IPv4 literal: decimal, 0-prefixed octal or 0x hex.
std::optional<uint64_t> ParseV4Part(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int base = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
    if (s.empty()) return 0;  // "0x": zero, as the URL standard reads it
  } else if (s.size() >= 2 && s[0] == '0') {
    base = 8;
    s.remove_prefix(1);
  }
  uint64_t value = 0;
  for (char c : s) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      return std::nullopt;
    }
    if (digit >= base) return std::nullopt;
    value = value * static_cast<uint64_t>(base) + static_cast<uint64_t>(digit);
    if (value > 0xffffffffull) return std::nullopt;
  }
  return value;
}

std::optional<uint32_t> ParseLooseV4(std::string_view s) {
  if (!s.empty() && s.back() == '.') s.remove_suffix(1);
  if (s.empty()) return std::nullopt;
  std::vector<uint64_t> parts;
  while (true) {
    const size_t dot = s.find('.');
    auto part = ParseV4Part(s.substr(0, dot));
    if (!part || parts.size() == 4) return std::nullopt;
    parts.push_back(*part);
    if (dot == std::string_view::npos) break;
    s.remove_prefix(dot + 1);
  }
  // Every part but the last is one byte; the last fills what is left.
  uint64_t value = 0;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] > 255) return std::nullopt;
    value |= parts[i] << (8 * (3 - i));
  }
  const int last_bits = 8 * static_cast<int>(5 - parts.size());
  if (last_bits < 32 && parts.back() >> last_bits != 0) return std::nullopt;
  return static_cast<uint32_t>(value | parts.back());
}

std::optional<IpAddress> ParseV6(std::string_view s) {
  if (s.size() >= 2 && s.front() == '[' && s.back() == ']') s = s.substr(1, s.size() - 2);
  if (auto zone = s.find('%'); zone != std::string_view::npos) s = s.substr(0, zone);
  if (s.find(':') == std::string_view::npos || s.size() > 45) return std::nullopt;
  std::array<uint8_t, 16> bytes{};
  const std::string text(s);
  if (::inet_pton(AF_INET6, text.c_str(), bytes.data()) != 1) return std::nullopt;
  return IpAddress::V6(bytes);
}

bool IsLocalhostName(std::string_view host) {
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  auto lower = [](std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return out;
  };
  const std::string h = lower(host);
  return h == "localhost" || h.ends_with(".localhost");
}

}  // namespace

IpAddress IpAddress::V4(uint32_t host_order) {
  IpAddress a;
  a.bytes[0] = static_cast<uint8_t>(host_order >> 24);
  a.bytes[1] = static_cast<uint8_t>(host_order >> 16);
  a.bytes[2] = static_cast<uint8_t>(host_order >> 8);
  a.bytes[3] = static_cast<uint8_t>(host_order);
  return a;
}

IpAddress IpAddress::V6(const std::array<uint8_t, 16>& bytes) {
  IpAddress a;
  a.v6 = true;
  a.bytes = bytes;
  return a;
}

const char* AddressClassName(AddressClass c) {
  switch (c) {
    case AddressClass::kGlobal:
      return "global";
    case AddressClass::kUnspecified:
      return "unspecified";
    case AddressClass::kLoopback:
      return "loopback";
    case AddressClass::kPrivate:
      return "private";
    case AddressClass::kSharedCgnat:
      return "shared (CGNAT)";
    case AddressClass::kLinkLocal:
      return "link-local";
    case AddressClass::kMulticast:
      return "multicast";
    case AddressClass::kBroadcast:
      return "broadcast";
    case AddressClass::kDocumentation:
      return "documentation";
    case AddressClass::kReserved:
      return "reserved";
  }
  return "reserved";
}

AddressClass ClassifyAddress(const IpAddress& address) {
  return address.v6 ? ClassifyV6(address.bytes) : ClassifyV4(V4At(address.bytes, 0));
}

std::optional<IpAddress> ParseIpLiteral(std::string_view host) {
  if (auto v4 = ParseLooseV4(host)) return IpAddress::V4(*v4);
  return ParseV6(host);
}

std::optional<AddressClass> ClassifyLiteralHost(std::string_view host) {
  if (auto ip = ParseIpLiteral(host)) return ClassifyAddress(*ip);
  if (IsLocalhostName(host)) return AddressClass::kLoopback;
  return std::nullopt;
}

}  // namespace redrive::engine
