#include "sdk/http_connection.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>

namespace redrive::sdk {
namespace {

Status Unavailable(const std::string& what) { return Status::Unavailable(what); }

int MillisUntil(SteadyTime deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// Waits for `events` on fd until the deadline: OK, or UNAVAILABLE on timeout.
Status WaitFor(int fd, short events, SteadyTime deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, MillisUntil(deadline));
    if (n > 0) return Status::Ok();
    if (n == 0) return Unavailable("timed out");
    if (errno != EINTR) return Unavailable(std::string("poll: ") + std::strerror(errno));
  }
}

// A non-negative number in `base`, or nullopt: a malformed header must be an
// error value, not an exception on a worker thread.
std::optional<size_t> ParseSize(std::string_view s, int base) {
  size_t out = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  if (ec != std::errc() || p == s.data()) return std::nullopt;
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int ConnectOne(const addrinfo* ai, SteadyTime deadline, std::string* error) {
  int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
  if (fd < 0) {
    *error = std::strerror(errno);
    return -1;
  }
  if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
    *error = std::strerror(errno);
    ::close(fd);
    return -1;
  }
  Status waited = WaitFor(fd, POLLOUT, deadline);
  int so_error = 0;
  socklen_t len = sizeof so_error;
  if (!waited.ok()) {
    *error = "connect timed out";
  } else if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0 || so_error != 0) {
    *error = std::strerror(so_error ? so_error : errno);
  } else {
    int one = 1;  // requests are small and latency-bound
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
  }
  ::close(fd);
  return -1;
}

}  // namespace

Result<std::unique_ptr<HttpConnection>> HttpConnection::Connect(const ServerUrl& url,
                                                                std::chrono::milliseconds timeout) {
  SteadyTime deadline = std::chrono::steady_clock::now() + timeout;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  std::string port = std::to_string(url.port);
  if (int rc = ::getaddrinfo(url.host.c_str(), port.c_str(), &hints, &list); rc != 0) {
    return Unavailable("cannot resolve " + url.host + ": " + ::gai_strerror(rc));
  }
  std::string error = "no address";
  int fd = -1;
  for (const addrinfo* ai = list; ai && fd < 0; ai = ai->ai_next) {
    fd = ConnectOne(ai, deadline, &error);
  }
  ::freeaddrinfo(list);
  if (fd < 0) {
    return Unavailable("cannot connect to " + url.host_header + ": " + error);
  }
  return std::unique_ptr<HttpConnection>(new HttpConnection(fd));
}

HttpConnection::~HttpConnection() { ::close(fd_); }

void HttpConnection::Abort() { ::shutdown(fd_, SHUT_RDWR); }

Status HttpConnection::WriteAll(const std::string& data, SteadyTime deadline) {
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      REDRIVE_RETURN_IF_ERROR(WaitFor(fd_, POLLOUT, deadline));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return Unavailable(std::string("send failed: ") + std::strerror(errno));
    }
  }
  return Status::Ok();
}

Status HttpConnection::ReadMore(SteadyTime deadline) {
  char chunk[16 * 1024];
  for (;;) {
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return Status::Ok();
    }
    if (n == 0) return Unavailable("connection closed by the server");
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return Unavailable(std::string("recv failed: ") + std::strerror(errno));
    }
    REDRIVE_RETURN_IF_ERROR(WaitFor(fd_, POLLIN, deadline));
  }
}

Status HttpConnection::ReadChunkedBody(size_t start, SteadyTime deadline, std::string* body) {
  size_t pos = start;
  for (;;) {
    size_t eol;
    while ((eol = buffer_.find("\r\n", pos)) == std::string::npos) {
      REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
    }
    auto parsed = ParseSize(std::string_view(buffer_).substr(pos, eol - pos), 16);
    if (!parsed) return Unavailable("malformed chunked body");
    size_t size = *parsed;
    pos = eol + 2;
    if (size == 0) {  // no trailers from our server: just the final CRLF
      while (buffer_.size() < pos + 2) REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
      buffer_.erase(0, pos + 2);
      return Status::Ok();
    }
    while (buffer_.size() < pos + size + 2) REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
    body->append(buffer_, pos, size);
    pos += size + 2;
  }
}

Result<HttpResponse> HttpConnection::RoundTrip(const std::string& request, SteadyTime deadline,
                                               bool* received_nothing) {
  *received_nothing = true;
  buffer_.clear();
  REDRIVE_RETURN_IF_ERROR(WriteAll(request, deadline));
  size_t header_end;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
    *received_nothing = false;
  }
  HttpResponse response;
  std::string_view head(buffer_.data(), header_end);
  // "HTTP/1.1 200 OK"
  if (head.substr(0, 5) != "HTTP/" || head.size() < 12) {
    return Unavailable("the server's answer is not HTTP");
  }
  response.status = std::atoi(std::string(head.substr(9, 3)).c_str());
  std::optional<size_t> content_length;
  bool chunked = false;
  size_t line_start = head.find("\r\n");
  while (line_start != std::string_view::npos && line_start < head.size()) {
    line_start += 2;
    size_t line_end = std::min(head.find("\r\n", line_start), head.size());
    std::string_view line = head.substr(line_start, line_end - line_start);
    size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      std::string name = Lower(line.substr(0, colon));
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (name == "content-length") {
        content_length = ParseSize(value, 10);
        if (!content_length) return Unavailable("malformed Content-Length");
      }
      if (name == "transfer-encoding" && Lower(value).find("chunked") != std::string::npos) {
        chunked = true;
      }
      if (name == "connection" && Lower(value) == "close") response.keep_alive = false;
    }
    line_start = line_end;
  }
  size_t body_start = header_end + 4;
  if (chunked) {
    REDRIVE_RETURN_IF_ERROR(ReadChunkedBody(body_start, deadline, &response.body));
  } else if (content_length) {
    while (buffer_.size() < body_start + *content_length) {
      REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
    }
    response.body = buffer_.substr(body_start, *content_length);
  } else if (response.status == 204 || response.status == 304) {
    // no body
  } else {  // a body delimited by the end of the connection
    response.keep_alive = false;
    for (;;) {
      Status s = ReadMore(deadline);
      if (!s.ok()) break;
    }
    response.body = buffer_.substr(body_start);
  }
  buffer_.clear();
  return response;
}

}  // namespace redrive::sdk
