// A small blocking HTTP/1.1 client over one keep-alive TCP connection.
//
// Why not Beast: it costs ~30 s of compile time per translation unit, and a
// load generator needs only "send a request, read one response" on a socket
// it owns. One HttpClient per thread; it is not thread-safe. Every request has
// a deadline, and an optional cancel flag (checked every few milliseconds while
// waiting) lets another thread end a long-poll promptly, so the tool never
// hangs on a silent server.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace redrive::bench {

// Where the server is: "http://HOST[:PORT]" (no TLS, no path).
struct Endpoint {
  std::string host;
  uint16_t port = 80;
  std::string HostHeader() const { return host + ":" + std::to_string(port); }
};
Result<Endpoint> ParseEndpoint(std::string_view url);

struct HttpResponse {
  int status = 0;
  std::string body;
};

class HttpClient {
 public:
  // `bearer_token` is sent as `Authorization: Bearer <token>` when not empty.
  HttpClient(Endpoint endpoint, std::string bearer_token);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends one request (a JSON body when `body` is not empty) and reads the whole
  // response. Connects (or reconnects) as needed. A request that fails on a
  // reused connection before any response byte arrived is retried once on a
  // fresh one: the server may have closed an idle keep-alive connection.
  // Errors (connect, timeout, cancel, malformed response) are kUnavailable;
  // any HTTP status, including 4xx/5xx, is a successful result.
  Result<HttpResponse> Request(std::string_view method, std::string_view target,
                               std::string_view body, std::chrono::milliseconds timeout);

  // While *cancel is true, requests fail fast with "cancelled". nullptr = never.
  void set_cancel_flag(const std::atomic<bool>* cancel) { cancel_ = cancel; }

  // Connections opened so far (1 for a healthy keep-alive run).
  int64_t connects() const { return connects_; }

 private:
  using Deadline = std::chrono::steady_clock::time_point;
  enum class Wait { kReady, kTimeout, kCancelled, kError };

  Status Connect(Deadline deadline);
  void Close();
  Wait WaitFor(short events, Deadline deadline);
  static Status WaitError(const char* what, Wait wait);
  Status SendAll(std::string_view data, Deadline deadline);
  // Reads until `in_` holds at least `n` bytes; on EOF or reset sets peer_closed_.
  Status FillTo(size_t n, Deadline deadline);
  Status ReadResponse(Deadline deadline, HttpResponse* out, bool* got_bytes, bool* keep_alive);
  Status ReadChunkedBody(size_t pos, Deadline deadline, std::string* body, size_t* consumed);

  Endpoint endpoint_;
  std::string auth_header_;
  const std::atomic<bool>* cancel_ = nullptr;
  int fd_ = -1;
  int64_t requests_on_connection_ = 0;
  bool peer_closed_ = false;  // the last I/O error was the server closing the connection
  int64_t connects_ = 0;
  std::string in_;  // bytes read but not yet consumed
};

}  // namespace redrive::bench
