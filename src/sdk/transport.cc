#include "sdk/transport.h"

#include <algorithm>

namespace redrive::sdk {

Transport::Transport(ServerUrl url, ClientOptions options)
    : url_(std::move(url)), options_(std::move(options)) {}

std::string Transport::Serialize(std::string_view method, const std::string& target,
                                 const std::optional<std::string>& body) const {
  std::string r;
  r.reserve(256 + (body ? body->size() : 0));
  r.append(method).append(" ").append(url_.base_path).append(target).append(" HTTP/1.1\r\n");
  r.append("Host: ").append(url_.host_header).append("\r\n");
  r.append("User-Agent: redrive-cpp-sdk/" REDRIVE_VERSION "\r\n");
  r.append("Accept: application/json\r\n");
  if (!options_.api_key.empty()) {
    r.append("Authorization: Bearer ").append(options_.api_key).append("\r\n");
  }
  if (!options_.reason.empty()) {
    r.append("X-Redrive-Reason: ").append(UrlEncode(options_.reason)).append("\r\n");
  }
  if (body) {
    r.append("Content-Type: application/json\r\n");
    r.append("Content-Length: ").append(std::to_string(body->size())).append("\r\n\r\n");
    r.append(*body);
  } else {
    r.append(method == "GET" || method == "DELETE" ? "\r\n" : "Content-Length: 0\r\n\r\n");
  }
  return r;
}

Result<std::unique_ptr<HttpConnection>> Transport::Acquire(bool* reused) {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      in_use_.push_back(c.get());
      *reused = true;
      return c;
    }
  }
  *reused = false;
  auto c = HttpConnection::Connect(url_, options_.connect_timeout);
  if (!c.ok()) return c.status();
  connections_opened_.fetch_add(1);
  std::lock_guard lock(mu_);
  in_use_.push_back(c->get());
  return std::move(c).value();
}

void Transport::Release(std::unique_ptr<HttpConnection> connection, bool reusable) {
  std::lock_guard lock(mu_);
  std::erase(in_use_, connection.get());
  if (reusable && static_cast<int>(idle_.size()) < options_.max_idle_connections) {
    idle_.push_back(std::move(connection));
  }
  // else: destroyed (closed) here, after leaving in_use_, so Abort never
  // touches a closed descriptor.
}

Result<HttpResponse> Transport::Attempt(const std::string& request, SteadyTime deadline,
                                        const std::stop_token& stop, bool* retryable) {
  *retryable = false;
  if (stop.stop_requested()) return Status::Unavailable("cancelled");
  bool reused = false;
  auto connection = Acquire(&reused);
  if (!connection.ok()) return connection.status();
  bool received_nothing = true;
  Result<HttpResponse> response = Status::Unavailable("cancelled");
  {
    // Runs at once if stop was requested meanwhile; its destructor waits for
    // a running Abort, so the connection outlives it.
    HttpConnection* c = connection->get();
    std::stop_callback abort_on_stop(stop, [c] { c->Abort(); });
    response = c->RoundTrip(request, deadline, &received_nothing);
  }
  // An aborted connection is shut down even if its answer came in whole.
  bool reusable = response.ok() && response->keep_alive && !stop.stop_requested();
  // A reused connection may have been closed by the server while idle (its
  // keep-alive timeout): the request never reached a handler, so sending it
  // again on a fresh connection is safe.
  *retryable =
      !response.ok() && reused && received_nothing && std::chrono::steady_clock::now() < deadline;
  Release(std::move(connection).value(), reusable);
  return response;
}

Result<HttpResponse> Transport::Send(std::string_view method, const std::string& target,
                                     const std::optional<std::string>& body,
                                     std::chrono::milliseconds extra_timeout,
                                     std::stop_token stop) {
  const std::string request = Serialize(method, target, body);
  const SteadyTime deadline =
      std::chrono::steady_clock::now() + options_.request_timeout + extra_timeout;
  uint64_t generation;
  {
    std::lock_guard lock(mu_);
    generation = cancel_generation_;
  }
  Result<HttpResponse> response = Status::Unavailable("no attempt");
  for (int attempt = 0; attempt < 3; ++attempt) {
    bool retryable = false;
    response = Attempt(request, deadline, stop, &retryable);
    if (response.ok() || !retryable || stop.stop_requested()) break;
    std::lock_guard lock(mu_);
    if (cancel_generation_ != generation) break;  // cancelled: don't resend
  }
  if (!response.ok()) {
    return Status::Unavailable("redrive server " + options_.server_url +
                               " unreachable: " + response.status().message());
  }
  return response;
}

Result<HttpResponse> Transport::Stream(const std::string& target,
                                       const std::function<bool(std::string_view)>& on_body,
                                       std::stop_token stop) {
  std::string request = Serialize("GET", target, std::nullopt);
  // An event stream, not JSON.
  const size_t accept = request.find("Accept: application/json");
  if (accept != std::string::npos) request.replace(accept, 24, "Accept: text/event-stream");
  auto connection = HttpConnection::Connect(url_, options_.connect_timeout);
  if (!connection.ok()) {
    return Status::Unavailable("redrive server " + options_.server_url +
                               " unreachable: " + connection.status().message());
  }
  connections_opened_.fetch_add(1);
  HttpConnection* c = connection->get();
  std::stop_callback abort_on_stop(stop, [c] { c->Abort(); });
  Result<HttpResponse> response =
      c->Stream(request, std::chrono::steady_clock::now() + options_.request_timeout, on_body);
  if (!response.ok() && !stop.stop_requested()) {
    return Status::Unavailable("redrive server " + options_.server_url + ": " +
                               response.status().message());
  }
  if (!response.ok()) return HttpResponse{.status = 200, .body = {}, .keep_alive = false};
  return response;
}

void Transport::CancelInFlight() {
  std::lock_guard lock(mu_);
  ++cancel_generation_;
  for (HttpConnection* c : in_use_) c->Abort();
}

}  // namespace redrive::sdk
