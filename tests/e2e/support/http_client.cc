#include "e2e/support/http_client.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>

namespace redrive::e2e {
namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

const std::string* HttpResponse::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? nullptr : &it->second;
}

// --- RawConnection

RawConnection::RawConnection(const std::string& host, uint16_t port,
                             std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* results = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &results); rc != 0) {
    error_ = std::string("resolve ") + host + ": " + gai_strerror(rc);
    return;
  }
  for (addrinfo* ai = results; ai != nullptr && fd_ < 0; ai = ai->ai_next) {
    fd_ = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd_ < 0) continue;
    if (connect(fd_, ai->ai_addr, ai->ai_addrlen) != 0) {
      error_ = std::string("connect: ") + std::strerror(errno);
      close(fd_);
      fd_ = -1;
    }
  }
  freeaddrinfo(results);
  if (fd_ >= 0) {
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    error_.clear();
  }
}

RawConnection::~RawConnection() {
  if (fd_ >= 0) close(fd_);
}

bool RawConnection::Send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error_ = std::string("send: ") + std::strerror(errno);
      peer_closed_ = true;
      return false;
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool RawConnection::Fill() {
  pollfd pfd{fd_, POLLIN, 0};
  int ready = poll(&pfd, 1, static_cast<int>(timeout_.count()));
  if (ready == 0) {
    error_ = "timed out after " + std::to_string(timeout_.count()) + " ms";
    return false;
  }
  char chunk[16384];
  ssize_t n = ready < 0 ? -1 : recv(fd_, chunk, sizeof chunk, 0);
  if (n <= 0) {
    error_ = n == 0 ? "connection closed by server" : std::string("recv: ") + std::strerror(errno);
    peer_closed_ = true;
    return false;
  }
  received_nothing_ = false;
  buffer_.append(chunk, static_cast<size_t>(n));
  return true;
}

bool RawConnection::ReadLine(std::string* line) {
  size_t end;
  while ((end = buffer_.find("\r\n")) == std::string::npos) {
    if (!Fill()) return false;
  }
  *line = buffer_.substr(0, end);
  buffer_.erase(0, end + 2);
  return true;
}

bool RawConnection::ReadExactly(size_t n, std::string* out) {
  while (buffer_.size() < n) {
    if (!Fill()) return false;
  }
  out->append(buffer_, 0, n);
  buffer_.erase(0, n);
  return true;
}

bool RawConnection::ReadChunked(std::string* out) {
  std::string line;
  while (true) {
    if (!ReadLine(&line)) return false;
    size_t size = std::strtoul(line.c_str(), nullptr, 16);  // ignores ;extensions
    if (size == 0) break;
    if (!ReadExactly(size, out) || !ReadLine(&line)) return false;
  }
  do {  // trailers, up to the empty line
    if (!ReadLine(&line)) return false;
  } while (!line.empty());
  return true;
}

HttpResponse RawConnection::ReadResponse(bool head_request) {
  HttpResponse response;
  received_nothing_ = buffer_.empty();
  auto failed = [&] {
    response.status = 0;
    response.error = error_;
    return response;
  };
  std::string line;
  bool http10 = false;
  do {  // skip interim 1xx responses (100 Continue)
    response.headers.clear();
    if (!ReadLine(&line)) return failed();
    if (line.size() < 12 || !line.starts_with("HTTP/1.")) {
      error_ = "bad status line: " + line;
      return failed();
    }
    http10 = line.starts_with("HTTP/1.0");
    response.status = std::atoi(line.c_str() + 9);
    while (true) {
      if (!ReadLine(&line)) return failed();
      if (line.empty()) break;
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string name = Lower(line.substr(0, colon));
      std::string value = Trim(std::string_view(line).substr(colon + 1));
      auto [it, inserted] = response.headers.try_emplace(name, value);
      if (!inserted) it->second += ", " + value;
    }
  } while (response.status >= 100 && response.status < 200);

  const std::string* connection = response.header("connection");
  bool close_after =
      connection ? Lower(*connection) == "close" : http10;  // HTTP/1.0 closes unless told otherwise
  const std::string* length = response.header("content-length");
  const std::string* encoding = response.header("transfer-encoding");
  bool ok = true;
  if (head_request || response.status == 204 || response.status == 304) {
    // no body
  } else if (encoding && Lower(*encoding).find("chunked") != std::string::npos) {
    ok = ReadChunked(&response.body);
  } else if (length) {
    ok = ReadExactly(std::strtoull(length->c_str(), nullptr, 10), &response.body);
  } else {
    response.body = ReadUntilClose();
    close_after = true;
  }
  if (!ok) return failed();
  if (close_after) peer_closed_ = true;
  return response;
}

std::string RawConnection::ReadUntilClose() {
  while (Fill()) {
  }
  std::string out = std::move(buffer_);
  buffer_.clear();
  return out;
}

// --- HttpClient

HttpClient::HttpClient(std::string host, uint16_t port) : host_(std::move(host)), port_(port) {}

HttpClient::~HttpClient() = default;

void HttpClient::Disconnect() { conn_.reset(); }

std::unique_ptr<RawConnection> HttpClient::Connect() {
  return std::make_unique<RawConnection>(host_, port_, timeout_);
}

HttpResponse HttpClient::SendOnce(const std::string& request, bool head_request, bool* retryable) {
  *retryable = false;
  bool reused = conn_ != nullptr;
  if (!conn_) {
    conn_ = Connect();
    if (!conn_->connected()) {
      HttpResponse failed;
      failed.error = conn_->error();
      conn_.reset();
      return failed;
    }
  }
  HttpResponse response;
  if (conn_->Send(request)) {
    response = conn_->ReadResponse(head_request);
  } else {
    response.error = conn_->error();
  }
  // A kept-alive connection the server closed meanwhile (idle timeout)
  // fails before any byte of the answer: safe to send again.
  if (response.status == 0 && reused && conn_->received_nothing()) *retryable = true;
  if (response.status == 0 || conn_->peer_closed()) conn_.reset();
  return response;
}

HttpResponse HttpClient::Request(std::string_view method, std::string_view target,
                                 std::string_view body, const Headers& headers) {
  std::string request;
  request.reserve(256 + body.size());
  request.append(method).append(" ").append(target).append(" HTTP/1.1\r\n");
  request.append("Host: ").append(host_).append(":").append(std::to_string(port_)).append("\r\n");
  if (!bearer_.empty()) request.append("Authorization: Bearer ").append(bearer_).append("\r\n");
  for (const auto& [name, value] : headers)
    request.append(name).append(": ").append(value).append("\r\n");
  if (!body.empty() || method == "POST" || method == "PUT" || method == "PATCH") {
    request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  request.append("\r\n").append(body);

  bool head = method == "HEAD";
  bool retryable = false;
  HttpResponse response = SendOnce(request, head, &retryable);
  if (retryable) response = SendOnce(request, head, &retryable);
  return response;
}

namespace {

JsonResponse ToJson(HttpResponse raw) {
  JsonResponse out;
  out.status = raw.status;
  if (!raw.body.empty()) {
    boost::system::error_code ec;
    boost::json::parse_options options;
    options.max_depth = 256;  // deeper than anything the server accepts
    boost::json::value parsed = boost::json::parse(raw.body, ec, {}, options);
    if (!ec) out.body = std::move(parsed);
  }
  out.raw = std::move(raw);
  return out;
}

}  // namespace

JsonResponse HttpClient::JsonRequest(std::string_view method, std::string_view target) {
  return ToJson(Request(method, target));
}

JsonResponse HttpClient::JsonRequest(std::string_view method, std::string_view target,
                                     const boost::json::value& body, const Headers& headers) {
  Headers all = headers;
  all.emplace_back("Content-Type", "application/json");
  return ToJson(Request(method, target, boost::json::serialize(body), all));
}

std::string HttpClient::RawExchange(std::string_view bytes) {
  std::unique_ptr<RawConnection> conn = Connect();
  if (!conn->connected()) return "";
  conn->Send(bytes);
  return conn->ReadUntilClose();
}

}  // namespace redrive::e2e
