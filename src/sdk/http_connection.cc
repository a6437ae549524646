#include "sdk/http_connection.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>

#include "sdk/http_response_head.h"

namespace redrive::sdk {
namespace {

// Our server's heads are a few hundred bytes; a peer sending more is not it.
constexpr size_t kMaxHeadBytes = 64 * 1024;

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
    if (n == 0) {
      peer_closed_ = true;
      return Unavailable("connection closed by the server");
    }
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
    std::optional<size_t> size = ParseChunkSize(std::string_view(buffer_).substr(pos, eol - pos));
    if (!size) return Unavailable("malformed chunked body");
    pos = eol + 2;
    if (*size == 0) {
      // Trailers (our server sends none), then the empty line.
      while ((eol = buffer_.find("\r\n", pos)) != pos) {
        if (eol == std::string::npos) {
          REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
        } else {
          pos = eol + 2;
        }
      }
      return Status::Ok();
    }
    while (buffer_.size() < pos + *size + 2) REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
    body->append(buffer_, pos, *size);
    pos += *size + 2;
  }
}

Result<HttpResponse> HttpConnection::Stream(const std::string& request, SteadyTime head_deadline,
                                            const std::function<bool(std::string_view)>& on_body) {
  buffer_.clear();
  peer_closed_ = false;
  REDRIVE_RETURN_IF_ERROR(WriteAll(request, head_deadline));
  size_t header_end;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (buffer_.size() > kMaxHeadBytes) return Unavailable("response header too large");
    REDRIVE_RETURN_IF_ERROR(ReadMore(head_deadline));
  }
  REDRIVE_ASSIGN_OR_RETURN(ResponseHead head,
                           ParseResponseHead(std::string_view(buffer_).substr(0, header_end)));
  HttpResponse response;
  response.status = head.status;
  response.keep_alive = false;
  const size_t body_start = header_end + 4;
  if (head.status < 200 || head.status > 299) {
    if (head.content_length) {
      while (buffer_.size() < body_start + *head.content_length) {
        REDRIVE_RETURN_IF_ERROR(ReadMore(head_deadline));
      }
      response.body = buffer_.substr(body_start, *head.content_length);
    }
    return response;
  }
  if (buffer_.size() > body_start && !on_body(std::string_view(buffer_).substr(body_start))) {
    return response;
  }
  char chunk[16 * 1024];
  for (;;) {
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      if (!on_body(std::string_view(chunk, static_cast<size_t>(n)))) return response;
      continue;
    }
    if (n == 0) return response;  // the server ended the stream (or Abort)
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return Unavailable(std::string("recv failed: ") + std::strerror(errno));
    }
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, -1) < 0 && errno != EINTR) {
      return Unavailable(std::string("poll: ") + std::strerror(errno));
    }
  }
}

Result<HttpResponse> HttpConnection::RoundTrip(const std::string& request, SteadyTime deadline,
                                               bool* received_nothing) {
  *received_nothing = true;
  buffer_.clear();
  peer_closed_ = false;
  REDRIVE_RETURN_IF_ERROR(WriteAll(request, deadline));
  size_t header_end;
  while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (buffer_.size() > kMaxHeadBytes) return Unavailable("response header too large");
    REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
    *received_nothing = false;
  }
  REDRIVE_ASSIGN_OR_RETURN(ResponseHead head,
                           ParseResponseHead(std::string_view(buffer_).substr(0, header_end)));
  HttpResponse response;
  response.status = head.status;
  response.keep_alive = head.keep_alive;
  const size_t body_start = header_end + 4;
  if (head.status < 200 || head.status == 204 || head.status == 304) {
    // No body by definition (no 1xx either: we never send Expect).
  } else if (head.chunked) {
    REDRIVE_RETURN_IF_ERROR(ReadChunkedBody(body_start, deadline, &response.body));
  } else if (head.content_length) {
    while (buffer_.size() < body_start + *head.content_length) {
      REDRIVE_RETURN_IF_ERROR(ReadMore(deadline));
    }
    response.body.assign(buffer_, body_start, *head.content_length);
  } else {  // a body delimited by the end of the connection
    response.keep_alive = false;
    for (Status s; s.ok();) s = ReadMore(deadline);
    if (!peer_closed_) return Unavailable("response body not terminated before the deadline");
    response.body.assign(buffer_, body_start);
  }
  return response;
}

}  // namespace redrive::sdk
