// A tiny HTTP server on loopback that plays a webhook receiver in end-to-end
// tests: it records every request and answers each with the next status of
// a script (then a default). Plain POSIX sockets, one connection at a time,
// "Connection: close" — enough for Redrive's one-POST-per-connection sender.
//
//   WebhookReceiver rx;                 // listening on 127.0.0.1:<free port>
//   rx.Script({500, 500});              // then 200s
//   ... rx.url("/hook") ...
//   ASSERT_TRUE(rx.WaitForRequests(3, 10s));
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace redrive::e2e {

struct ReceivedRequest {
  std::string method;
  std::string target;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  // "" when absent. `lower_name` must be lower case.
  std::string header(const std::string& lower_name) const;
};

class WebhookReceiver {
 public:
  // Listens on `port` (0: a free one). SO_REUSEADDR, so a test can stop the
  // receiver and start another on the same port ("the receiver was down").
  explicit WebhookReceiver(uint16_t port = 0);
  ~WebhookReceiver();  // Stop()s
  WebhookReceiver(const WebhookReceiver&) = delete;
  WebhookReceiver& operator=(const WebhookReceiver&) = delete;

  bool listening() const { return listen_fd_ >= 0; }
  uint16_t port() const { return port_; }
  std::string url(const std::string& path = "/hook") const;

  // The statuses of the next answers, in order; afterwards default_status.
  void Script(std::vector<int> statuses);
  void set_default_status(int status);

  // Waits until at least `n` requests arrived. False on timeout.
  bool WaitForRequests(size_t n, std::chrono::milliseconds timeout);
  std::vector<ReceivedRequest> Requests() const;

  // Closes the listener; later connections are refused.
  void Stop();

 private:
  void Serve();
  void HandleConnection(int fd);

  int listen_fd_ = -1;
  uint16_t port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> script_;
  int default_status_ = 200;
  std::vector<ReceivedRequest> requests_;
  bool stop_ = false;
  std::thread thread_;
};

// Lower-case hex HMAC-SHA256(key, message), computed with OpenSSL directly
// (not the server's code), for checking X-Redrive-Signature.
std::string HmacSha256HexForTest(const std::string& key, const std::string& message);

}  // namespace redrive::e2e
