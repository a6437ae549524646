#include "outbound_http/signature.h"

#include <gtest/gtest.h>

namespace redrive::outbound_http {
namespace {

// The HMAC-SHA256 of "<timestamp>.<body>" under the secret, as hex (the
// expected value computed independently, with Python's hmac module).
TEST(SignatureHeaderTest, SignsTimestampDotBody) {
  EXPECT_EQ(SignatureHeader("Jefe", 1700000000, "{}"),
            "sha256=d3793e2b4103edfbd98cc19591832f5fad701d413db9fcae0ae7dab8184ed207");
}

}  // namespace
}  // namespace redrive::outbound_http
