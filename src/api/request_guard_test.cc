#include "api/request_guard.h"

#include <gtest/gtest.h>

namespace redrive::api {
namespace {

Request With(std::string method, std::map<std::string, std::string> headers) {
  Request r;
  r.method = std::move(method);
  r.target = "/api/v1/queues/q/pause";
  r.headers = std::move(headers);
  return r;
}

const HostPolicy kPolicy{"127.0.0.1", {"queue.example.com"}};

TEST(HostOfAuthorityTest, StripsPortBracketsAndCase) {
  EXPECT_EQ(HostOfAuthority("LocalHost:7070"), "localhost");
  EXPECT_EQ(HostOfAuthority("[::1]:7070"), "::1");
  EXPECT_EQ(HostOfAuthority("[::1]"), "::1");
  EXPECT_EQ(HostOfAuthority("example.com."), "example.com");
  EXPECT_EQ(HostOfAuthority("[::1"), "");
  EXPECT_EQ(HostOfAuthority("a:b:c"), "");
}

TEST(CheckHostTest, AcceptsLoopbackNamesIpLiteralsListenAndAllowedHosts) {
  for (const char* host :
       {"localhost", "localhost:7070", "127.0.0.1:7070", "[::1]:7070", "127.0.0.1", "10.1.2.3:7070",
        "[2001:db8::1]:80", "queue.example.com:8443", "QUEUE.example.com"}) {
    EXPECT_TRUE(CheckHost(With("GET", {{"host", host}}), kPolicy).ok()) << host;
  }
  EXPECT_TRUE(CheckHost(With("GET", {}), kPolicy).ok());  // HTTP/1.0 without Host
  HostPolicy named{"redrive.internal", {}};
  EXPECT_TRUE(CheckHost(With("GET", {{"host", "redrive.internal:7070"}}), named).ok());
}

TEST(CheckHostTest, RefusesOtherNamesAndNamesTheFlag) {
  for (const char* host : {"evil.example", "evil.example:7070", "localhost.evil.example",
                           "127.0.0.1.evil.example", "", "[::1"}) {
    Status st = CheckHost(With("GET", {{"host", host}}), kPolicy);
    EXPECT_EQ(st.code(), ErrorCode::kAccessDenied) << host;
    EXPECT_NE(st.message().find("--allowed-host"), std::string::npos) << st.message();
  }
}

TEST(CheckSameOriginTest, AcceptsRequestsWithoutBrowserHeadersOrFromTheSameOrigin) {
  EXPECT_TRUE(CheckSameOrigin(With("POST", {{"host", "127.0.0.1:7070"}}), kPolicy).ok());
  EXPECT_TRUE(CheckSameOrigin(With("POST", {{"host", "127.0.0.1:7070"},
                                            {"origin", "http://127.0.0.1:7070"},
                                            {"sec-fetch-site", "same-origin"}}),
                              kPolicy)
                  .ok());
  EXPECT_TRUE(
      CheckSameOrigin(With("POST", {{"host", "Example.com"}, {"origin", "http://example.com:80"}}),
                      kPolicy)
          .ok());
  EXPECT_TRUE(
      CheckSameOrigin(
          With("POST", {{"host", "example.com:443"}, {"origin", "https://example.com"}}), kPolicy)
          .ok());
  // Typed into the address bar, a bookmark: no site at all.
  EXPECT_TRUE(CheckSameOrigin(With("POST", {{"sec-fetch-site", "none"}}), kPolicy).ok());
  // Behind a proxy that rewrites Host: the public name is an allowed host.
  EXPECT_TRUE(CheckSameOrigin(With("POST", {{"host", "127.0.0.1:7070"},
                                            {"origin", "https://queue.example.com"}}),
                              kPolicy)
                  .ok());
}

TEST(CheckSameOriginTest, RefusesForeignOriginsAndCrossSiteFetches) {
  const std::map<std::string, std::string> refused[] = {
      {{"host", "127.0.0.1:7070"}, {"origin", "http://evil.example"}},
      {{"host", "127.0.0.1:7070"}, {"origin", "http://127.0.0.1:3000"}},  // another local page
      {{"host", "127.0.0.1:7070"}, {"origin", "null"}},
      {{"host", "127.0.0.1:7070"}, {"sec-fetch-site", "cross-site"}},
      {{"host", "127.0.0.1:7070"}, {"sec-fetch-site", "same-site"}},
      {{"origin", "http://127.0.0.1:7070"}},  // no Host to compare with
  };
  for (const auto& headers : refused) {
    Status st = CheckSameOrigin(With("POST", headers), kPolicy);
    EXPECT_EQ(st.code(), ErrorCode::kAccessDenied) << headers.begin()->second;
    EXPECT_NE(st.message().find("cross-origin"), std::string::npos);
  }
}

TEST(IsMutatingMethodTest, ReadsAreNot) {
  EXPECT_FALSE(IsMutatingMethod("GET"));
  EXPECT_FALSE(IsMutatingMethod("HEAD"));
  EXPECT_FALSE(IsMutatingMethod("OPTIONS"));
  for (const char* m : {"POST", "PUT", "DELETE", "PATCH"}) EXPECT_TRUE(IsMutatingMethod(m));
}

}  // namespace
}  // namespace redrive::api
