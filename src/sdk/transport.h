// Requests to one server over a small pool of keep-alive connections. Turns
// every transport failure into SERVICE_UNAVAILABLE naming the server.
//
// Thread-safety: Send() may be called from many threads; each request takes
// a connection of its own (an idle one, or a new one).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "redrive/client.h"
#include "sdk/http_connection.h"
#include "sdk/server_url.h"

namespace redrive::sdk {

class Transport {
 public:
  // REQUIRES: url parsed from options.server_url.
  Transport(ServerUrl url, ClientOptions options);

  // `target` is the request target ("/api/v1/jobs?…"); `body` (if any) is
  // JSON. `extra_timeout` lengthens the request timeout (long-polls). Once
  // `stop` is requested the request fails at once (before it is sent, or by
  // aborting its connection) and is not resent.
  Result<HttpResponse> Send(std::string_view method, const std::string& target,
                            const std::optional<std::string>& body,
                            std::chrono::milliseconds extra_timeout = {},
                            std::stop_token stop = {});

  // A request whose answer is a live stream (HttpConnection::Stream), on a
  // connection of its own that is closed afterwards. `stop` aborts it.
  Result<HttpResponse> Stream(const std::string& target,
                              const std::function<bool(std::string_view)>& on_body,
                              std::stop_token stop);

  void CancelInFlight();

  int64_t connections_opened() const { return connections_opened_.load(); }

 private:
  std::string Serialize(std::string_view method, const std::string& target,
                        const std::optional<std::string>& body) const;
  // An idle connection (reused = true) or a new one.
  Result<std::unique_ptr<HttpConnection>> Acquire(bool* reused);
  void Release(std::unique_ptr<HttpConnection> connection, bool reusable);
  Result<HttpResponse> Attempt(const std::string& request, SteadyTime deadline,
                               const std::stop_token& stop, bool* retryable);

  const ServerUrl url_;
  const ClientOptions options_;
  std::mutex mu_;
  std::vector<std::unique_ptr<HttpConnection>> idle_;  // guarded by mu_
  // A vector, not a set: a request in flight must not cost an allocation.
  std::vector<HttpConnection*> in_use_;  // guarded by mu_
  uint64_t cancel_generation_ = 0;       // guarded by mu_
  std::atomic<int64_t> connections_opened_{0};
};

}  // namespace redrive::sdk
