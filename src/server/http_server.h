// The HTTP/1.1 front door: accepts connections, parses requests with
// Boost.Beast, hands each one to a Handler as a plain api::Request and writes
// back the api::Response it eventually gets. It does no routing (that is the
// Api's job) and keeps Beast/Asio out of this header (pimpl), so including it
// is cheap.
//
// Threads: `io_threads` threads run all socket I/O. Each connection lives on
// its own strand and serves one request at a time (pipelined requests wait in
// its buffer). The handler runs on an I/O thread and must not block; it may
// answer later from any thread, and the server hops back to the connection's
// strand before writing.
//
// Limits: a connection has `read_timeout` to deliver each complete request
// (headers and body) — which also bounds keep-alive idling and drops
// slowloris clients — and `write_timeout` to accept the response. A body over
// `max_body_bytes` is answered 413 PAYLOAD_TOO_LARGE; bytes that do not parse
// as HTTP get 400 BAD_REQUEST; both then close that connection only.
//
// Before a body is read (and before "100 Continue") the request's head goes
// to `screen`, which may answer it at once (401, 403, ...): a client that may
// not make the request cannot make the server buffer its body. Such an answer
// closes the connection when a body was announced. At most `max_connections`
// connections are served at once (others get 503 SERVICE_UNAVAILABLE and are
// closed), and the bodies being read or handled on all connections together
// hold at most `max_buffered_body_bytes` (a request that would pass it gets
// 503 and its connection is closed).
//
// Thread-safety: Start() and Stop() are called from one thread; port() after
// a successful Start() from any.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "api/http_types.h"
#include "core/status.h"

namespace redrive::server {

// Answers one request by calling `respond` exactly once, from any thread,
// possibly before returning. A response given after the server is destroyed
// is dropped safely.
using Handler = std::function<void(api::Request request, api::Responder respond)>;

// Judges a request by its head (its body is empty, not yet read): the answer
// to send instead of reading the body and calling the Handler, or nullopt.
// Runs on an I/O thread: must not block.
using Screen = std::function<std::optional<api::Response>(const api::Request& head)>;

struct HttpServerOptions {
  std::string host = "127.0.0.1";  // an address or a name resolved at Start()
  uint16_t port = 7070;            // 0: the kernel picks a free port
  int io_threads = 1;
  size_t max_body_bytes = 16 << 20;
  size_t max_header_bytes = 16 << 10;
  size_t max_connections = 1024;
  size_t max_buffered_body_bytes = 128 << 20;  // over all connections
  Screen screen;                               // empty: every request is read
  std::chrono::milliseconds read_timeout{30'000};
  std::chrono::milliseconds write_timeout{30'000};
  // How long Stop() waits for requests in flight before cutting them off.
  std::chrono::milliseconds shutdown_grace{10'000};
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, Handler handler);
  ~HttpServer();  // Stop()s
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the I/O threads. An error (address in use,
  // unknown host, ...) is a one-line Status naming the address.
  // REQUIRES: called at most once.
  Status Start();

  // The bound port (the chosen one when options.port was 0).
  uint16_t port() const;

  // First half of a graceful stop, without waiting: stops accepting, closes
  // idle keep-alive connections, and lets requests in flight be answered
  // (their connections close after the response). Lets the caller then make
  // the handler finish early — e.g. stop the engine, which answers pending
  // long-polls — before Stop() waits. Idempotent.
  void Drain();

  // Graceful stop: Drain(), then waits up to shutdown_grace for the requests
  // in flight to be answered, cuts whatever is left and joins the I/O
  // threads. Idempotent.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace redrive::server
