// The webhook target rules as tables: every special-purpose range at its
// edges, every literal notation, and the hosts that are names.
#include "engine/webhooks/target_address.h"

#include <gtest/gtest.h>

#include <string>

namespace redrive::engine {
namespace {

struct Case {
  const char* host;
  AddressClass expected;
};

// Each literal is parsed and classified; the table covers both.
void ExpectClasses(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    std::optional<IpAddress> ip = ParseIpLiteral(c.host);
    ASSERT_TRUE(ip.has_value()) << c.host << " should parse as an IP literal";
    EXPECT_EQ(AddressClassName(ClassifyAddress(*ip)), std::string(AddressClassName(c.expected)))
        << c.host;
    EXPECT_EQ(IsGlobalAddress(*ip), c.expected == AddressClass::kGlobal) << c.host;
  }
}

TEST(TargetAddressTest, ClassifiesIpv4RangesAtTheirEdges) {
  using enum AddressClass;
  ExpectClasses({
      {"0.0.0.0", kUnspecified},
      {"0.255.255.255", kUnspecified},
      {"1.0.0.0", kGlobal},
      {"1.1.1.1", kGlobal},
      {"8.8.8.8", kGlobal},
      {"9.255.255.255", kGlobal},
      {"10.0.0.0", kPrivate},
      {"10.255.255.255", kPrivate},
      {"11.0.0.0", kGlobal},
      {"100.63.255.255", kGlobal},
      {"100.64.0.0", kSharedCgnat},
      {"100.127.255.255", kSharedCgnat},
      {"100.128.0.0", kGlobal},
      {"126.255.255.255", kGlobal},
      {"127.0.0.0", kLoopback},
      {"127.0.0.1", kLoopback},
      {"127.255.255.255", kLoopback},
      {"128.0.0.0", kGlobal},
      {"169.253.255.255", kGlobal},
      {"169.254.0.0", kLinkLocal},
      {"169.254.169.254", kLinkLocal},
      {"169.254.255.255", kLinkLocal},
      {"169.255.0.0", kGlobal},
      {"172.15.255.255", kGlobal},
      {"172.16.0.0", kPrivate},
      {"172.31.255.255", kPrivate},
      {"172.32.0.0", kGlobal},
      {"192.0.0.0", kReserved},
      {"192.0.0.255", kReserved},
      {"192.0.1.0", kGlobal},
      {"192.0.2.0", kDocumentation},
      {"192.0.2.255", kDocumentation},
      {"192.0.3.0", kGlobal},
      {"192.31.196.1", kReserved},
      {"192.52.193.1", kReserved},
      {"192.88.99.1", kReserved},
      {"192.167.255.255", kGlobal},
      {"192.168.0.0", kPrivate},
      {"192.168.1.1", kPrivate},
      {"192.168.255.255", kPrivate},
      {"192.169.0.0", kGlobal},
      {"192.175.48.1", kReserved},
      {"198.17.255.255", kGlobal},
      {"198.18.0.0", kReserved},
      {"198.19.255.255", kReserved},
      {"198.20.0.0", kGlobal},
      {"198.51.100.7", kDocumentation},
      {"203.0.113.9", kDocumentation},
      {"203.0.114.0", kGlobal},
      {"223.255.255.255", kGlobal},
      {"224.0.0.0", kMulticast},
      {"239.255.255.255", kMulticast},
      {"240.0.0.0", kReserved},
      {"255.255.255.254", kReserved},
      {"255.255.255.255", kBroadcast},
  });
}

TEST(TargetAddressTest, ClassifiesIpv6RangesAndEmbeddedIpv4) {
  using enum AddressClass;
  ExpectClasses({
      {"::", kUnspecified},
      {"::1", kLoopback},
      {"[::1]", kLoopback},
      {"::2", kReserved},          // IPv4-compatible, deprecated
      {"::127.0.0.1", kReserved},  // IPv4-compatible, deprecated
      {"::ffff:127.0.0.1", kLoopback},
      {"[::ffff:7f00:1]", kLoopback},
      {"::ffff:10.1.2.3", kPrivate},
      {"::ffff:169.254.169.254", kLinkLocal},
      {"::ffff:0.0.0.0", kUnspecified},
      {"::ffff:8.8.8.8", kGlobal},
      {"::ffff:0:8.8.8.8", kReserved},  // IPv4-translated
      {"64:ff9b::127.0.0.1", kLoopback},
      {"64:ff9b::8.8.8.8", kGlobal},
      {"64:ff9b:1::1", kReserved},  // local-use NAT64
      {"2002:7f00:1::", kLoopback},
      {"2002:c0a8:101::1", kPrivate},
      {"2002:808:808::1", kGlobal},
      {"100::1", kReserved},
      {"2001::1", kReserved},  // Teredo
      {"2001:1ff:ffff::1", kReserved},
      {"2001:200::1", kGlobal},
      {"2001:db7:ffff::1", kGlobal},
      {"2001:db8::1", kDocumentation},
      {"2001:db9::1", kGlobal},
      {"2606:4700:4700::1111", kGlobal},
      {"2a00:1450:4001:80b::200e", kGlobal},
      {"3ffe:ffff::1", kGlobal},
      {"3fff::1", kDocumentation},
      {"3fff:fff::1", kDocumentation},
      {"3fff:1000::1", kGlobal},
      {"4000::1", kReserved},
      {"5f00::1", kReserved},
      {"fbff::1", kReserved},
      {"fc00::1", kPrivate},
      {"fd12:3456::1", kPrivate},
      {"fdff:ffff::1", kPrivate},
      {"fe80::1", kLinkLocal},
      {"fe80::1%eth0", kLinkLocal},
      {"[fe80::1%25eth0]", kLinkLocal},
      {"febf::1", kLinkLocal},
      {"fec0::1", kReserved},  // site-local, deprecated
      {"ff02::1", kMulticast},
      {"ff0e::1", kMulticast},
  });
}

TEST(TargetAddressTest, ParsesEveryIpv4NotationAResolverAccepts) {
  const IpAddress loopback = IpAddress::V4(0x7f000001);
  for (const char* host :
       {"127.0.0.1", "2130706433", "127.1", "127.0.1", "0x7f000001", "0X7F000001", "0x7f.1",
        "0177.0.0.1", "017700000001", "0x7f.0.0.0x1", "127.0.0.1.", "0177.0x0.0.01"}) {
    std::optional<IpAddress> ip = ParseIpLiteral(host);
    ASSERT_TRUE(ip.has_value()) << host;
    EXPECT_EQ(*ip, loopback) << host;
  }
  EXPECT_EQ(ParseIpLiteral("0"), IpAddress::V4(0));
  EXPECT_EQ(ParseIpLiteral("0x"), IpAddress::V4(0));
  EXPECT_EQ(ParseIpLiteral("169.254.43518"), IpAddress::V4(0xa9fea9fe));  // 169.254.169.254
  EXPECT_EQ(ParseIpLiteral("4294967295"), IpAddress::V4(0xffffffff));
  EXPECT_EQ(ParseIpLiteral("10.16777215"), IpAddress::V4(0x0affffff));
}

TEST(TargetAddressTest, NamesAndMalformedLiteralsAreNotAddresses) {
  for (const char* host : {"",           ".",          "example.com", "hooks.slack.com",
                           "localhost",  "1.2.3.4.5",  "256.0.0.1",   "1.256.0.1",
                           "1.2.65536",  "1.16777216", "4294967296",  "08.0.0.1",
                           "0x1g",       "1..2",       "1.2.3.4..",   "127.0.0.1 ",
                           " 127.0.0.1", "127.0.0.1x", "-1",          "1e3",
                           "::g",        "1:2",        ":::",         "[::1",
                           "::1]",       "abc:"}) {
    EXPECT_FALSE(ParseIpLiteral(host).has_value()) << '"' << host << '"';
  }
}

TEST(TargetAddressTest, LiteralHostsAreClassifiedWithoutResolving) {
  EXPECT_EQ(ClassifyLiteralHost("127.1"), AddressClass::kLoopback);
  EXPECT_EQ(ClassifyLiteralHost("2130706433"), AddressClass::kLoopback);
  EXPECT_EQ(ClassifyLiteralHost("169.254.169.254"), AddressClass::kLinkLocal);
  EXPECT_EQ(ClassifyLiteralHost("::ffff:192.168.0.1"), AddressClass::kPrivate);
  EXPECT_EQ(ClassifyLiteralHost("localhost"), AddressClass::kLoopback);
  EXPECT_EQ(ClassifyLiteralHost("LocalHost."), AddressClass::kLoopback);
  EXPECT_EQ(ClassifyLiteralHost("api.localhost"), AddressClass::kLoopback);
  EXPECT_EQ(ClassifyLiteralHost("8.8.8.8"), AddressClass::kGlobal);
  // Names are classified once resolved, at send time.
  EXPECT_EQ(ClassifyLiteralHost("example.com"), std::nullopt);
  EXPECT_EQ(ClassifyLiteralHost("notlocalhost"), std::nullopt);
  EXPECT_EQ(ClassifyLiteralHost("localhost.example.com"), std::nullopt);
}

TEST(TargetAddressTest, EveryClassHasAName) {
  using enum AddressClass;
  for (AddressClass c : {kGlobal, kUnspecified, kLoopback, kPrivate, kSharedCgnat, kLinkLocal,
                         kMulticast, kBroadcast, kDocumentation, kReserved}) {
    EXPECT_STRNE(AddressClassName(c), "") << static_cast<int>(c);
  }
  EXPECT_STREQ(AddressClassName(kLinkLocal), "link-local");
}

}  // namespace
}  // namespace redrive::engine
