// One HTTP/1.1 connection over a POSIX socket: connect with a timeout, send a
// request, read one response before a deadline (Content-Length, chunked, or
// up to the close; heads parsed by http_response_head.h). Plain sockets rather
// than Beast/Asio keep the SDK light to compile and link. The SDK's only HTTP
// client: the CLI and redrive-bench use it through redrive::Client.
//
// Thread-safety: one thread uses a connection at a time; Abort() alone may be
// called from another thread (it wakes a blocked read).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"
#include "sdk/server_url.h"

namespace redrive::sdk {

using SteadyTime = std::chrono::steady_clock::time_point;

struct HttpResponse {
  int status = 0;
  std::string body;
  bool keep_alive = true;  // false: the server will close; don't reuse
};

class HttpConnection {
 public:
  // SERVICE_UNAVAILABLE when the server cannot be resolved or reached in time.
  static Result<std::unique_ptr<HttpConnection>> Connect(const ServerUrl& url,
                                                         std::chrono::milliseconds timeout);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Writes `request` (a whole serialized request) and reads the answer.
  // `*received_nothing` tells a caller whether the failure happened before
  // any byte of a response arrived (a reused connection the server had
  // already closed: safe to resend on a fresh one).
  Result<HttpResponse> RoundTrip(const std::string& request, SteadyTime deadline,
                                 bool* received_nothing);

  // Writes `request` and reads an answer whose body does not end (a live
  // event stream): its head before `head_deadline`; then, for a 2xx, every
  // piece of body as it arrives to `on_body`, with no deadline, until the
  // server closes, `on_body` returns false or Abort() (the response then
  // has an empty body). Any other answer is read whole, as RoundTrip.
  Result<HttpResponse> Stream(const std::string& request, SteadyTime head_deadline,
                              const std::function<bool(std::string_view)>& on_body);

  // Shuts the socket down so a blocked RoundTrip or Stream fails at once.
  void Abort();

 private:
  explicit HttpConnection(int fd) : fd_(fd) {}
  Status WriteAll(const std::string& data, SteadyTime deadline);
  // Appends at least one byte to buffer_; UNAVAILABLE on EOF (then
  // peer_closed_), error or deadline.
  Status ReadMore(SteadyTime deadline);
  // Appends the chunked body starting at buffer_[start] to *body.
  Status ReadChunkedBody(size_t start, SteadyTime deadline, std::string* body);

  int fd_;
  std::string buffer_;        // the current response's bytes
  bool peer_closed_ = false;  // the server closed its side during this round trip
};

}  // namespace redrive::sdk
