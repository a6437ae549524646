#include "e2e/support/webhook_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace redrive::e2e {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Reads until `fd` has sent a whole request (headers + Content-Length body)
// or 5 s pass. False if it never did.
bool ReadRequest(int fd, ReceivedRequest* out) {
  std::string data;
  size_t header_end = std::string::npos;
  size_t body_len = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (true) {
    if (header_end != std::string::npos && data.size() >= header_end + 4 + body_len) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    data.append(buf, static_cast<size_t>(n));
    if (header_end == std::string::npos) {
      header_end = data.find("\r\n\r\n");
      if (header_end == std::string::npos) continue;
      // Request line and headers.
      size_t line_end = data.find("\r\n");
      std::string request_line = data.substr(0, line_end);
      size_t sp1 = request_line.find(' ');
      size_t sp2 = request_line.find(' ', sp1 + 1);
      out->method = request_line.substr(0, sp1);
      out->target = request_line.substr(sp1 + 1, sp2 - sp1 - 1);
      size_t pos = line_end + 2;
      while (pos < header_end) {
        size_t eol = data.find("\r\n", pos);
        std::string line = data.substr(pos, eol - pos);
        size_t colon = line.find(':');
        if (colon != std::string::npos) {
          std::string value = line.substr(colon + 1);
          value.erase(0, value.find_first_not_of(' '));
          out->headers[Lower(line.substr(0, colon))] = value;
        }
        pos = eol + 2;
      }
      auto cl = out->headers.find("content-length");
      if (cl != out->headers.end()) body_len = std::stoul(cl->second);
    }
  }
  out->body = data.substr(header_end + 4, body_len);
  return true;
}

}  // namespace

std::string ReceivedRequest::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

WebhookReceiver::WebhookReceiver(uint16_t port) {
  // CLOEXEC: a server the test starts later must not inherit the listener
  // (it would keep the port "up" after Stop(), queueing connections forever).
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 64) != 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
    return;
  }
  socklen_t len = sizeof addr;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  thread_ = std::thread([this] { Serve(); });
}

WebhookReceiver::~WebhookReceiver() { Stop(); }

std::string WebhookReceiver::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

void WebhookReceiver::Script(std::vector<int> statuses) {
  std::lock_guard<std::mutex> lock(mu_);
  script_.assign(statuses.begin(), statuses.end());
}

void WebhookReceiver::set_default_status(int status) {
  std::lock_guard<std::mutex> lock(mu_);
  default_status_ = status;
}

bool WebhookReceiver::WaitForRequests(size_t n, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [&] { return requests_.size() >= n; });
}

std::vector<ReceivedRequest> WebhookReceiver::Requests() const {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void WebhookReceiver::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void WebhookReceiver::Serve() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
    }
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;  // re-checks stop_ every 50 ms
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    HandleConnection(fd);
    ::close(fd);
  }
}

void WebhookReceiver::HandleConnection(int fd) {
  ReceivedRequest req;
  if (!ReadRequest(fd, &req)) return;
  int status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!script_.empty()) {
      status = script_.front();
      script_.pop_front();
    } else {
      status = default_status_;
    }
  }
  const std::string body = "{\"ok\":" + std::string(status < 300 ? "true" : "false") + "}";
  const std::string response = "HTTP/1.1 " + std::to_string(status) +
                               " Status\r\nContent-Type: application/json\r\nContent-Length: " +
                               std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
  ::send(fd, response.data(), response.size(), MSG_NOSIGNAL);
  // Recorded after answering, so a test that saw n requests also sees the
  // server get their answers promptly.
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(std::move(req));
  }
  cv_.notify_all();
}

std::string HmacSha256HexForTest(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) {
    hex.push_back(kHex[mac[i] >> 4]);
    hex.push_back(kHex[mac[i] & 15]);
  }
  return hex;
}

}  // namespace redrive::e2e
