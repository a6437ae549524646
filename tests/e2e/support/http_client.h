// A tiny blocking HTTP/1.1 client over POSIX sockets for end-to-end tests.
//
// Why its own, and not the SDK's (the one client everything else uses): these
// tests check the server's wire output byte by byte (status lines, headers,
// chunked framing, when the connection closes) and send it malformed,
// oversized, half-written and pipelined requests. A reader shared with the
// server (Beast) or with the SDK (src/sdk/http_connection.cc) would let one
// parsing bug hide on both sides of a test, and the SDK's client, which
// refuses or normalises what it does not expect, could neither send those
// bytes nor show them. So this client writes requests and parses responses
// itself, sharing no code with src/server or src/sdk: keep it that way.
//
// Transport failures never throw: the response has status 0 and `error` says
// what happened, so tests can write ASSERT_EQ(r.status, 200) << r.error.
// Not thread-safe: use one client per thread.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redrive::e2e {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  int status = 0;                              // 0: no response (see error)
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  std::string error;  // transport failure, when status == 0

  // nullptr when absent. `lower_name` must be lower case.
  const std::string* header(const std::string& lower_name) const;
};

struct JsonResponse {
  int status = 0;
  boost::json::value body;  // null when the body is empty or not JSON
  HttpResponse raw;
};

// One TCP connection with a read buffer. Every read waits at most `timeout`.
class RawConnection {
 public:
  RawConnection(const std::string& host, uint16_t port, std::chrono::milliseconds timeout);
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }

  bool Send(std::string_view bytes);
  // One response (1xx interim responses are skipped). `head_request`: the
  // response has no body whatever its headers say. Sets peer_closed() when
  // the server announced or performed a close.
  HttpResponse ReadResponse(bool head_request = false);
  // Everything that arrives until the peer closes or the timeout passes.
  std::string ReadUntilClose();
  // True once the server closed the connection or said "Connection: close".
  bool peer_closed() const { return peer_closed_; }
  // Nothing of the current response has arrived yet (for stale keep-alive retries).
  bool received_nothing() const { return received_nothing_; }

 private:
  bool Fill();  // appends to buffer_; false on EOF, error or timeout
  bool ReadLine(std::string* line);
  bool ReadExactly(size_t n, std::string* out);
  bool ReadChunked(std::string* out);

  int fd_ = -1;
  std::chrono::milliseconds timeout_;
  std::string buffer_;
  std::string error_;
  bool peer_closed_ = false;
  bool received_nothing_ = true;
};

class HttpClient {
 public:
  HttpClient(std::string host, uint16_t port);
  ~HttpClient();
  HttpClient(HttpClient&&) = default;
  HttpClient& operator=(HttpClient&&) = default;

  // Sent as "Authorization: Bearer <key>" on every request; empty: none.
  void set_bearer_token(std::string key) { bearer_ = std::move(key); }
  // Per read; default 60 s (long-polls wait up to 30 s).
  void set_timeout(std::chrono::milliseconds timeout) { timeout_ = timeout; }

  // Sends one request on the kept-alive connection (reconnecting as needed)
  // and returns the response. Adds Host and Content-Length.
  HttpResponse Request(std::string_view method, std::string_view target, std::string_view body = {},
                       const Headers& headers = {});
  HttpResponse Get(std::string_view target) { return Request("GET", target); }

  // Request without a body, parsing the response as JSON.
  JsonResponse JsonRequest(std::string_view method, std::string_view target);
  // Request with `body` serialized as application/json.
  JsonResponse JsonRequest(std::string_view method, std::string_view target,
                           const boost::json::value& body, const Headers& headers = {});

  // Sends `bytes` verbatim on a new connection and returns everything the
  // server sends back until it closes (or the timeout passes). For garbage,
  // oversize and protocol tests.
  std::string RawExchange(std::string_view bytes);
  // A fresh connection to the server, for tests that drive the bytes
  // themselves (slow clients, pipelining).
  std::unique_ptr<RawConnection> Connect();

  // Closes the kept-alive connection, if any.
  void Disconnect();

  const std::string& host() const { return host_; }
  uint16_t port() const { return port_; }

 private:
  HttpResponse SendOnce(const std::string& request, bool head_request, bool* retryable);

  std::string host_;
  uint16_t port_;
  std::string bearer_;
  std::chrono::milliseconds timeout_{60'000};
  std::unique_ptr<RawConnection> conn_;
};

}  // namespace redrive::e2e
