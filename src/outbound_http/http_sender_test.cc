// HttpSender against a one-shot socket server on loopback: what it sends
// (headers, signature) and how it classifies answers, errors and timeouts.
#include "outbound_http/http_sender.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "crypto/secret_text.h"
#include "outbound_http/signature.h"

namespace redrive::outbound_http {
namespace {

using namespace std::chrono_literals;

// Accepts one connection, reads one request, answers `response` (or, when
// empty, holds the connection open without answering until destroyed).
class OneShotServer {
 public:
  explicit OneShotServer(std::string response) : response_(std::move(response)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~OneShotServer() {
    ::shutdown(fd_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/in?x=1"; }
  uint16_t port() const { return port_; }
  const std::string& request() const { return request_; }  // after Send returned

 private:
  void Serve() {
    int c = ::accept(fd_, nullptr, nullptr);
    if (c < 0) return;
    char buf[4096];
    while (request_.find("\r\n\r\n") == std::string::npos ||
           request_.size() < request_.find("\r\n\r\n") + 4 + BodyLength()) {
      ssize_t n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      request_.append(buf, static_cast<size_t>(n));
    }
    if (!response_.empty()) {
      ::send(c, response_.data(), response_.size(), MSG_NOSIGNAL);
    } else {
      ::recv(c, buf, sizeof buf, 0);  // hold it open until the client gives up
    }
    ::close(c);
  }
  size_t BodyLength() const {
    auto at = request_.find("Content-Length: ");
    return at == std::string::npos ? 0 : std::stoul(request_.substr(at + 16));
  }

  std::string response_;
  std::string request_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

engine::OutgoingPost Post(const std::string& url) {
  return {url, "k3y", "job.failed", "dlv-1", R"({"id":"ev-1"})"};
}

const Instant kNow = InstantFromMicros(1'800'000'000'000'000);

// The receivers here are on loopback, which a default sender refuses.
HttpSender LoopbackSender(HttpSenderOptions options = {}) {
  options.allow_private_targets = true;
  return HttpSender(options);
}

TEST(HttpSenderTest, PostsTheSignedBodyWithTheContractsHeaders) {
  OneShotServer server("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
  AttemptResult r = LoopbackSender().Send(Post(server.url()), kNow);
  EXPECT_TRUE(r.success);
  EXPECT_EQ(r.status_code, 204);
  EXPECT_FALSE(r.error);
  const std::string& req = server.request();
  EXPECT_EQ(req.rfind("POST /in?x=1 HTTP/1.1\r\n", 0), 0u) << req;
  EXPECT_NE(req.find("Content-Type: application/json\r\n"), std::string::npos);
  EXPECT_NE(req.find("X-Redrive-Event: job.failed\r\n"), std::string::npos);
  EXPECT_NE(req.find("X-Redrive-Delivery: dlv-1\r\n"), std::string::npos);
  EXPECT_NE(req.find("X-Redrive-Timestamp: 1800000000\r\n"), std::string::npos);
  EXPECT_NE(req.find("X-Redrive-Signature: " +
                     SignatureHeader("k3y", 1800000000, R"({"id":"ev-1"})") + "\r\n"),
            std::string::npos);
  EXPECT_NE(req.find("\r\n\r\n{\"id\":\"ev-1\"}"), std::string::npos);
}

// signature_format "spooled": Spooled's header names over the same HMAC, which
// a Spooled receiver checks as "sha256=" + hex HMAC(secret, "<ts>.<body>").
TEST(HttpSenderTest, SpooledSignatureFormatSendsSpooledsHeaders) {
  OneShotServer server("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
  engine::OutgoingPost post = Post(server.url());
  post.signature_format = SignatureFormat::kSpooled;
  post.attempt = 3;
  AttemptResult r = LoopbackSender().Send(post, kNow);
  EXPECT_TRUE(r.success) << r.error.value_or("");
  const std::string& req = server.request();
  EXPECT_NE(req.find("X-Spooled-Event: job.failed\r\n"), std::string::npos) << req;
  EXPECT_NE(req.find("X-Spooled-Delivery-Attempt: 3\r\n"), std::string::npos);
  EXPECT_NE(req.find("X-Spooled-Timestamp: 1800000000\r\n"), std::string::npos);
  const std::string expected =
      "sha256=" + crypto::HmacSha256Hex("k3y", std::string("1800000000.") + R"({"id":"ev-1"})");
  EXPECT_NE(req.find("X-Spooled-Signature: " + expected + "\r\n"), std::string::npos);
  EXPECT_EQ(req.find("X-Redrive-"), std::string::npos);
}

TEST(HttpSenderTest, ANon2xxAnswerIsAFailureWithItsStatus) {
  OneShotServer server("HTTP/1.1 500 Oops\r\nContent-Length: 4\r\nConnection: close\r\n\r\nnope");
  AttemptResult r = LoopbackSender().Send(Post(server.url()), kNow);
  EXPECT_FALSE(r.success);
  EXPECT_EQ(r.status_code, 500);
  EXPECT_EQ(r.error, "HTTP 500");
}

TEST(HttpSenderTest, NoAnswerWithinTheTimeoutIsATimeout) {
  OneShotServer server("");
  HttpSenderOptions options;
  options.timeout = 200ms;
  AttemptResult r = LoopbackSender(options).Send(Post(server.url()), kNow);
  EXPECT_FALSE(r.success);
  EXPECT_FALSE(r.status_code);
  EXPECT_EQ(r.error, "timed out");
  EXPECT_GE(r.duration, 150ms);
  EXPECT_LT(r.duration, 2s);
}

TEST(HttpSenderTest, RefusedConnectionsAndBadUrlsAreFailures) {
  AttemptResult refused = LoopbackSender().Send(Post("http://127.0.0.1:1/"), kNow);
  EXPECT_FALSE(refused.success);
  EXPECT_FALSE(refused.status_code);
  EXPECT_EQ(refused.error, "Connection refused");
  AttemptResult bad = HttpSender().Send(Post("ftp://example.com/"), kNow);
  EXPECT_EQ(bad.error, "invalid URL");
}

// By default no loopback target is connected to, whatever the notation, and
// a name is judged by what it resolves to ("localhost", from the hosts
// file). The one-shot server accepts one connection: the allowed POST after
// the refused ones gets it only if none of them connected.
TEST(HttpSenderTest, RefusesNonGlobalTargetsWithoutConnecting) {
  OneShotServer server("HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
  const std::string port = std::to_string(server.port());
  for (const std::string host : {"127.0.0.1", "localhost", "2130706433", "127.1", "0x7f.1",
                                 "[::ffff:127.0.0.1]", "[::1]", "0.0.0.0"}) {
    AttemptResult r = HttpSender().Send(Post("http://" + host + ":" + port + "/in"), kNow);
    EXPECT_FALSE(r.success) << host;
    EXPECT_FALSE(r.status_code) << host;
    EXPECT_EQ(r.error, "target address not allowed") << host;
  }
  HttpSenderOptions options;
  options.timeout = 5s;
  AttemptResult allowed = LoopbackSender(options).Send(Post(server.url()), kNow);
  EXPECT_EQ(allowed.status_code, 204) << allowed.error.value_or("");
  EXPECT_EQ(server.request().rfind("POST /in?x=1 HTTP/1.1\r\n", 0), 0u) << server.request();
}

TEST(HttpSenderTest, RefusesMetadataAndPrivateAddressesBeforeConnecting) {
  // Nothing listens there: a sender that tried would time out or fail to
  // connect, not answer the policy's error.
  HttpSenderOptions options;
  options.timeout = 2s;
  for (const char* url :
       {"http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "https://192.168.1.1/",
        "http://100.64.0.1/", "http://[fd00::1]/", "http://[fe80::1]/", "http://224.0.0.1/"}) {
    AttemptResult r = HttpSender(options).Send(Post(url), kNow);
    EXPECT_EQ(r.error, "target address not allowed") << url;
  }
}

}  // namespace
}  // namespace redrive::outbound_http
