#include "sdk/http_response_head.h"

#include <gtest/gtest.h>

namespace redrive::sdk {
namespace {

TEST(ParseResponseHead, ContentLengthKeepAlive) {
  auto h = ParseResponseHead(
      "HTTP/1.1 201 Created\r\nContent-Type: application/json\r\n"
      "content-length: 42");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->status, 201);
  EXPECT_EQ(h->content_length, 42u);
  EXPECT_FALSE(h->chunked);
  EXPECT_TRUE(h->keep_alive);
}

TEST(ParseResponseHead, ConnectionCloseAndChunked) {
  auto h =
      ParseResponseHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\nConnection: Close");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->chunked);
  EXPECT_FALSE(h->keep_alive);
}

TEST(ParseResponseHead, Http10ClosesUnlessKeepAlive) {
  auto h = ParseResponseHead("HTTP/1.0 200 OK\r\nContent-Length: 0");
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(h->keep_alive);
  h = ParseResponseHead("HTTP/1.0 204 No Content\r\nConnection: keep-alive");
  ASSERT_TRUE(h.ok());
  EXPECT_TRUE(h->keep_alive);
  EXPECT_EQ(h->status, 204);
}

TEST(ParseResponseHead, RejectsGarbage) {
  EXPECT_FALSE(ParseResponseHead("SSH-2.0-OpenSSH").ok());
  EXPECT_FALSE(ParseResponseHead("HTTP/1.1 2x0 OK").ok());
  EXPECT_FALSE(ParseResponseHead("HTTP/1.1 200 OK\r\nno colon here").ok());
  EXPECT_FALSE(ParseResponseHead("HTTP/1.1 200 OK\r\nContent-Length: -1").ok());
}

TEST(ParseChunkSize, HexWithExtensions) {
  EXPECT_EQ(ParseChunkSize("1a"), 26u);
  EXPECT_EQ(ParseChunkSize("FF;name=value"), 255u);
  EXPECT_EQ(ParseChunkSize("0"), 0u);
  EXPECT_FALSE(ParseChunkSize("").has_value());
  EXPECT_FALSE(ParseChunkSize("zz").has_value());
}

}  // namespace
}  // namespace redrive::sdk
