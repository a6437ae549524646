// Transport and HttpConnection against a scripted loopback server: how bodies
// are delimited, when a connection is kept, the stale keep-alive resend, and
// stopping a request that waits for its answer.
#include "sdk/transport.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <deque>
#include <future>
#include <thread>

namespace redrive::sdk {
namespace {

using std::chrono::milliseconds;

// What the server does with the next request it reads.
struct Step {
  enum Kind { kReply, kReplyAndClose, kHold } kind = kReply;
  std::string bytes;  // the raw reply (kReply, kReplyAndClose)
};

// Accepts connections one at a time and answers each request with the next
// Step; kHold reads the request, reports it on `held`, and waits for the
// client to close. When the steps run out it closes and stops.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::deque<Step> steps) : steps_(std::move(steps)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    EXPECT_EQ(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len), 0);
    EXPECT_EQ(::listen(listen_fd_, 8), 0);
    ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~ScriptedServer() {
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes a blocked accept
    thread_.join();
    ::close(listen_fd_);
  }

  ServerUrl url() const { return {"127.0.0.1", port_, "", "127.0.0.1:" + std::to_string(port_)}; }
  int connections() const { return connections_; }
  std::future<void> held() { return held_.get_future(); }

 private:
  void Serve() {
    while (!steps_.empty()) {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      ++connections_;
      ServeConnection(fd);
      ::close(fd);
    }
  }

  void ServeConnection(int fd) {
    std::string in;
    while (!steps_.empty()) {
      if (!ReadRequest(fd, &in)) return;
      Step step = std::move(steps_.front());
      steps_.pop_front();
      if (step.kind == Step::kHold) {
        held_.set_value();
        while (ReadSome(fd, &in)) {
        }
        return;
      }
      ::send(fd, step.bytes.data(), step.bytes.size(), MSG_NOSIGNAL);
      if (step.kind == Step::kReplyAndClose) return;
    }
  }

  static bool ReadSome(int fd, std::string* in) {
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return false;
    in->append(buf, static_cast<size_t>(n));
    return true;
  }

  // Consumes one request (head and Content-Length body) from the stream.
  static bool ReadRequest(int fd, std::string* in) {
    size_t end;
    while ((end = in->find("\r\n\r\n")) == std::string::npos) {
      if (!ReadSome(fd, in)) return false;
    }
    size_t length = 0;
    if (size_t at = in->find("Content-Length: "); at != std::string::npos && at < end) {
      length = std::stoul(in->substr(at + 16));
    }
    while (in->size() < end + 4 + length) {
      if (!ReadSome(fd, in)) return false;
    }
    in->erase(0, end + 4 + length);
    return true;
  }

  std::deque<Step> steps_;  // used by the server thread only, after construction
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<int> connections_{0};
  std::promise<void> held_;
  std::thread thread_;
};

ClientOptions Options() {
  ClientOptions o;
  o.request_timeout = milliseconds(20'000);
  return o;
}

constexpr const char* kOk = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

TEST(TransportTest, ChunkedBodiesWithTrailersKeepTheConnection) {
  ScriptedServer server({{Step::kReply,
                          "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                          "3;x=y\r\n{\"a\r\n2\r\n\":\r\n1\r\n1\r\n1\r\n}\r\n0\r\nX-T: 1\r\n\r\n"},
                         {Step::kReply, kOk}});
  Transport transport(server.url(), Options());
  auto first = transport.Send("GET", "/x", std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->body, "{\"a\":1}");
  auto second = transport.Send("POST", "/y", std::string("{}"));
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->body, "ok");
  EXPECT_EQ(transport.connections_opened(), 1);
}

TEST(TransportTest, ConnectionCloseAndBodiesToTheCloseAreNotReused) {
  ScriptedServer server(
      {{Step::kReplyAndClose, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto-eof"},
       {Step::kReplyAndClose, "HTTP/1.0 404 Not Found\r\nContent-Length: 1\r\n\r\nn"},
       {Step::kReply, kOk}});
  Transport transport(server.url(), Options());
  auto first = transport.Send("GET", "/a", std::nullopt);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->body, "to-eof");
  auto second = transport.Send("GET", "/b", std::nullopt);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->status, 404);
  EXPECT_FALSE(second->keep_alive);  // HTTP/1.0 without keep-alive
  ASSERT_TRUE(transport.Send("GET", "/c", std::nullopt).ok());
  EXPECT_EQ(transport.connections_opened(), 3);
}

TEST(TransportTest, AStaleKeptAliveConnectionIsResentOnAFreshOne) {
  // The server answers keep-alive, then closes while the connection is idle.
  ScriptedServer server({{Step::kReplyAndClose, kOk}, {Step::kReply, kOk}});
  Transport transport(server.url(), Options());
  ASSERT_TRUE(transport.Send("GET", "/a", std::nullopt).ok());
  auto again = transport.Send("POST", "/b", std::string("{}"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->body, "ok");
  EXPECT_EQ(transport.connections_opened(), 2);
  EXPECT_EQ(server.connections(), 2);
}

TEST(TransportTest, MalformedAnswersAreUnavailable) {
  ScriptedServer server({{Step::kReplyAndClose, "SSH-2.0-OpenSSH\r\n\r\n"}});
  Transport transport(server.url(), Options());
  auto r = transport.Send("GET", "/a", std::nullopt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
}

TEST(TransportTest, StopEndsARequestWaitingForItsAnswer) {
  ScriptedServer server({{Step::kHold, ""}});
  std::future<void> held = server.held();
  Transport transport(server.url(), Options());
  std::stop_source stop;
  auto started = std::chrono::steady_clock::now();
  auto pending = std::async(std::launch::async, [&] {
    return transport.Send("POST", "/jobs/claim", std::string("{}"), milliseconds(20'000),
                          stop.get_token());
  });
  held.wait();  // the server has the request and is not answering
  stop.request_stop();
  Result<HttpResponse> r = pending.get();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_LT(std::chrono::steady_clock::now() - started, milliseconds(10'000));
  EXPECT_EQ(transport.connections_opened(), 1);  // not resent
}

TEST(TransportTest, AStoppedRequestIsNotSent) {
  ScriptedServer server({{Step::kReply, kOk}});
  Transport transport(server.url(), Options());
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(transport.Send("GET", "/a", std::nullopt, {}, stop.get_token()).ok());
  EXPECT_EQ(transport.connections_opened(), 0);
  EXPECT_TRUE(transport.Send("GET", "/a", std::nullopt).ok());  // later requests work
}

}  // namespace
}  // namespace redrive::sdk
