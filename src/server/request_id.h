// Request ids: one per HTTP request, so that a client's report ("my enqueue
// at 10:02 failed") and the server's log lines of that request can be put
// side by side. A client may choose it (X-Request-Id, e.g. from a proxy that
// assigned one at the edge); otherwise the server makes one up. The session
// echoes it in the response's X-Request-Id and holds it as the current
// request id of its thread while it screens and hands the request over, so
// log lines written then carry it (app/logging.h prints it).
//
// Thread-safety: the current request id is per thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace redrive::server {

// The longest client-chosen request id kept (longer ones are replaced).
inline constexpr size_t kMaxRequestIdLength = 128;

// True for 1..kMaxRequestIdLength visible ASCII characters (0x21..0x7E): no
// spaces, control characters or bytes past ASCII, which would let a client
// forge or break log lines.
bool IsAcceptableRequestId(std::string_view id);

// `client_id` when acceptable, else a new id: 16 lower-case hex digits,
// random per process and counted per request, so never repeated by one process.
std::string AcceptOrMakeRequestId(std::string_view client_id);

// The request id of the request this thread is working on; empty if none.
const std::string& CurrentRequestId();

// Sets the current request id of this thread for its lifetime, then puts
// back the previous one.
class ScopedRequestId {
 public:
  explicit ScopedRequestId(const std::string& id);
  ~ScopedRequestId();
  ScopedRequestId(const ScopedRequestId&) = delete;
  ScopedRequestId& operator=(const ScopedRequestId&) = delete;

 private:
  std::string previous_;
};

}  // namespace redrive::server
