#include "sdk/server_url.h"

#include <gtest/gtest.h>

namespace redrive::sdk {
namespace {

TEST(ParseServerUrl, HostPortAndBasePath) {
  auto url = ParseServerUrl("http://127.0.0.1:7070/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->port, 7070);
  EXPECT_EQ(url->base_path, "");
  EXPECT_EQ(url->host_header, "127.0.0.1:7070");
  url = ParseServerUrl("http://localhost");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port, 7070);  // Redrive's port, not 80
  url = ParseServerUrl("http://proxy:8080/redrive/");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->base_path, "/redrive");
  url = ParseServerUrl("http://[::1]:9000");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->host_header, "[::1]:9000");
}

TEST(ParseServerUrl, RejectsWhatItCannotReach) {
  for (const char* bad : {"https://x:1", "x:1", "http://x:99999", "http://x:0", "http://x:1a",
                          "http://:7070", "http://[::1"}) {
    auto url = ParseServerUrl(bad);
    EXPECT_FALSE(url.ok()) << bad;
    EXPECT_EQ(url.status().field(), "server_url") << bad;
  }
}

TEST(UrlEncode, KeepsUnreservedOnly) {
  EXPECT_EQ(UrlEncode("a-b_c.d~9"), "a-b_c.d~9");
  EXPECT_EQ(UrlEncode("k=v&x y/é"), "k%3Dv%26x%20y%2F%C3%A9");
}

}  // namespace
}  // namespace redrive::sdk
