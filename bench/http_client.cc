#include "http_client.h"

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

#include "http_parse.h"

namespace redrive::bench {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr size_t kMaxHeaderBytes = 64 * 1024;
constexpr size_t kMaxBodyBytes = 64 * 1024 * 1024;
// How often a blocked wait looks at the cancel flag.
constexpr milliseconds kCancelPollSlice{10};

Status IoError(std::string what) { return Status::Unavailable(std::move(what)); }

std::string Errno(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

Result<Endpoint> ParseEndpoint(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return Status::BadRequest("server URL must start with http:// (no TLS support)");
  }
  url.remove_prefix(kScheme.size());
  if (!url.empty() && url.back() == '/') url.remove_suffix(1);
  if (url.find('/') != std::string_view::npos) {
    return Status::BadRequest("server URL must not have a path (the tool adds /api/v1)");
  }
  Endpoint ep;
  size_t colon = url.rfind(':');
  if (colon == std::string_view::npos) {
    ep.host = std::string(url);
  } else {
    ep.host = std::string(url.substr(0, colon));
    int port = 0;
    for (char c : url.substr(colon + 1)) {
      if (c < '0' || c > '9' || port > 65535) return Status::BadRequest("bad port in server URL");
      port = port * 10 + (c - '0');
    }
    if (port <= 0 || port > 65535) return Status::BadRequest("bad port in server URL");
    ep.port = static_cast<uint16_t>(port);
  }
  if (ep.host.empty()) return Status::BadRequest("server URL has no host");
  return ep;
}

HttpClient::HttpClient(Endpoint endpoint, std::string bearer_token)
    : endpoint_(std::move(endpoint)) {
  if (!bearer_token.empty()) auth_header_ = "Authorization: Bearer " + bearer_token + "\r\n";
}

HttpClient::~HttpClient() { Close(); }

void HttpClient::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  requests_on_connection_ = 0;
  in_.clear();
}

HttpClient::Wait HttpClient::WaitFor(short events, Deadline deadline) {
  for (;;) {
    if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) return Wait::kCancelled;
    auto left = std::chrono::duration_cast<milliseconds>(deadline - steady_clock::now());
    if (left.count() <= 0) return Wait::kTimeout;
    if (cancel_ != nullptr) left = std::min(left, kCancelPollSlice);
    pollfd p{fd_, events, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n > 0) return Wait::kReady;  // includes POLLERR/POLLHUP: the next call reports it
    if (n < 0 && errno != EINTR) return Wait::kError;
  }
}

Status HttpClient::WaitError(const char* what, Wait wait) {
  if (wait == Wait::kTimeout) return IoError(std::string(what) + ": timeout");
  if (wait == Wait::kCancelled) return IoError("cancelled");
  return IoError(Errno("poll"));
}

Status HttpClient::Connect(Deadline deadline) {
  Close();
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port = std::to_string(endpoint_.port);
  if (int rc = ::getaddrinfo(endpoint_.host.c_str(), port.c_str(), &hints, &res); rc != 0) {
    return IoError("resolve " + endpoint_.host + ": " + ::gai_strerror(rc));
  }
  Status st = IoError("connect " + endpoint_.HostHeader() + ": no address");
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    fd_ = ::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd_ < 0) {
      st = IoError(Errno("socket"));
      continue;
    }
    if (::connect(fd_, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
      st = IoError(Errno(("connect " + endpoint_.HostHeader()).c_str()));
      Close();
      continue;
    }
    Wait w = WaitFor(POLLOUT, deadline);
    int err = 0;
    socklen_t len = sizeof(err);
    if (w != Wait::kReady) {
      st = WaitError("connect", w);
    } else if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
      errno = err;
      st = IoError(Errno(("connect " + endpoint_.HostHeader()).c_str()));
    } else {
      // Requests are small and strictly request/response: Nagle would only add delay.
      int one = 1;
      ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
      ++connects_;
      st = Status::Ok();
      break;
    }
    Close();
  }
  ::freeaddrinfo(res);
  return st;
}

Status HttpClient::SendAll(std::string_view data, Deadline deadline) {
  while (!data.empty()) {
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Wait w = WaitFor(POLLOUT, deadline);
      if (w != Wait::kReady) return WaitError("send", w);
      continue;
    }
    peer_closed_ = errno == EPIPE || errno == ECONNRESET;
    return IoError(Errno("send"));
  }
  return Status::Ok();
}

Status HttpClient::FillTo(size_t n, Deadline deadline) {
  char buf[64 * 1024];
  while (in_.size() < n) {
    ssize_t got = ::recv(fd_, buf, sizeof(buf), 0);
    if (got > 0) {
      in_.append(buf, static_cast<size_t>(got));
      continue;
    }
    if (got == 0) {
      peer_closed_ = true;
      return IoError("connection closed by server");
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      Wait w = WaitFor(POLLIN, deadline);
      if (w != Wait::kReady) return WaitError("recv", w);
      continue;
    }
    peer_closed_ = errno == ECONNRESET;
    return IoError(Errno("recv"));
  }
  return Status::Ok();
}

Status HttpClient::ReadChunkedBody(size_t pos, Deadline deadline, std::string* body,
                                   size_t* consumed) {
  for (;;) {
    size_t eol;
    while ((eol = in_.find("\r\n", pos)) == std::string::npos) {
      REDRIVE_RETURN_IF_ERROR(FillTo(in_.size() + 1, deadline));
    }
    std::optional<size_t> size = ParseChunkSize(std::string_view(in_).substr(pos, eol - pos));
    if (!size || body->size() + *size > kMaxBodyBytes) return IoError("bad chunk size");
    pos = eol + 2;
    if (*size == 0) {
      // Trailers (none expected) end with an empty line.
      while ((eol = in_.find("\r\n", pos)) != pos) {
        if (eol == std::string::npos) {
          REDRIVE_RETURN_IF_ERROR(FillTo(in_.size() + 1, deadline));
        } else {
          pos = eol + 2;
        }
      }
      *consumed = pos + 2;
      return Status::Ok();
    }
    REDRIVE_RETURN_IF_ERROR(FillTo(pos + *size + 2, deadline));
    body->append(in_, pos, *size);
    pos += *size + 2;
  }
}

Status HttpClient::ReadResponse(Deadline deadline, HttpResponse* out, bool* got_bytes,
                                bool* keep_alive) {
  size_t header_end;
  while ((header_end = in_.find("\r\n\r\n")) == std::string::npos) {
    if (in_.size() > kMaxHeaderBytes) return IoError("response header too large");
    Status st = FillTo(in_.size() + 1, deadline);
    *got_bytes = !in_.empty();
    if (!st.ok()) return st;
  }
  *got_bytes = true;
  Result<ResponseHead> head = ParseResponseHead(std::string_view(in_).substr(0, header_end));
  if (!head.ok()) return head.status();
  out->status = head->status;
  *keep_alive = head->keep_alive;
  size_t body_start = header_end + 4;
  size_t consumed = body_start;
  out->body.clear();
  if (head->status < 200 || head->status == 204 || head->status == 304) {
    // No body by definition (1xx are not expected: we never send Expect).
  } else if (head->chunked) {
    REDRIVE_RETURN_IF_ERROR(ReadChunkedBody(body_start, deadline, &out->body, &consumed));
  } else if (head->content_length) {
    if (*head->content_length > kMaxBodyBytes) return IoError("response body too large");
    REDRIVE_RETURN_IF_ERROR(FillTo(body_start + *head->content_length, deadline));
    out->body.assign(in_, body_start, *head->content_length);
    consumed = body_start + *head->content_length;
  } else {
    // Neither length nor chunked: the body runs to the end of the connection.
    Status st = FillTo(kMaxBodyBytes, deadline);
    if (!peer_closed_) return st.ok() ? IoError("response body too large") : st;
    out->body.assign(in_, body_start);
    consumed = in_.size();
    *keep_alive = false;
  }
  in_.erase(0, consumed);
  return Status::Ok();
}

Result<HttpResponse> HttpClient::Request(std::string_view method, std::string_view target,
                                         std::string_view body, milliseconds timeout) {
  const Deadline deadline = steady_clock::now() + timeout;
  std::string req;
  req.reserve(256 + body.size());
  req.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: ");
  req.append(endpoint_.HostHeader()).append("\r\n").append(auth_header_);
  if (!body.empty()) {
    req.append("Content-Type: application/json\r\nContent-Length: ");
    req.append(std::to_string(body.size())).append("\r\n");
  } else if (method == "POST" || method == "PUT") {
    req.append("Content-Length: 0\r\n");
  }
  req.append("\r\n").append(body);

  for (int attempt = 0;; ++attempt) {
    if (cancel_ != nullptr && cancel_->load(std::memory_order_relaxed)) {
      return IoError("cancelled");
    }
    if (fd_ < 0) REDRIVE_RETURN_IF_ERROR(Connect(deadline));
    const bool reused = requests_on_connection_ > 0;
    bool got_bytes = false;
    bool keep_alive = true;
    peer_closed_ = false;
    HttpResponse resp;
    Status st = SendAll(req, deadline);
    if (st.ok()) st = ReadResponse(deadline, &resp, &got_bytes, &keep_alive);
    if (!st.ok()) {
      Close();
      // Only a reused connection that died before answering is worth one more
      // try; a timeout or a cancel is final.
      if (reused && !got_bytes && peer_closed_ && attempt == 0) continue;
      return st;
    }
    ++requests_on_connection_;
    if (!keep_alive) Close();
    return resp;
  }
}

}  // namespace redrive::bench
