// The front door against the real binary (issue 10): requests refused on
// their head before any body is read, cross-origin state changes and
// unexpected Host names refused without keys, failed keys rate-limited.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

int StatusOf(const std::string& raw) {
  return raw.size() > 12 && raw.starts_with("HTTP/1.1 ") ? std::stoi(raw.substr(9, 3)) : 0;
}

std::string Authority(const ServerProcess& server) {
  return "127.0.0.1:" + std::to_string(server.Client().port());
}

TEST(FrontDoorTest, CrossSiteSimplePostIsRefusedButCurlStillWorks) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  ASSERT_EQ(c.JsonRequest("POST", "/api/v1/jobs",
                          json::object{{"queue_name", "fd"}, {"payload", json::object{}}})
                .status,
            201);
  // What a page on evil.example can make any browser send, no preflight.
  HttpResponse attack =
      c.Request("POST", "/api/v1/queues/fd/pause", "",
                {{"Origin", "http://evil.example"}, {"Content-Type", "text/plain"}});
  EXPECT_EQ(attack.status, 403) << attack.body;
  EXPECT_NE(attack.body.find("ACCESS_DENIED"), std::string::npos) << attack.body;
  HttpResponse retry =
      c.Request("POST", "/api/v1/jobs/dlq/retry", "",
                {{"Sec-Fetch-Site", "cross-site"}, {"Content-Type", "text/plain"}});
  EXPECT_EQ(retry.status, 403) << retry.body;
  auto queue = c.JsonRequest("GET", "/api/v1/queues/fd");
  ASSERT_EQ(queue.status, 200);
  EXPECT_FALSE(queue.body.at("paused").as_bool());

  // curl -X POST …/pause: no Origin, no body.
  HttpResponse curl = c.Request("POST", "/api/v1/queues/fd/pause");
  EXPECT_EQ(curl.status, 200) << curl.body;
  // The console: same origin.
  HttpResponse console =
      c.Request("POST", "/api/v1/queues/fd/resume", "",
                {{"Origin", "http://" + Authority(server)}, {"Sec-Fetch-Site", "same-origin"}});
  EXPECT_EQ(console.status, 200) << console.body;
  EXPECT_EQ(server.Stop(), 0);
}

TEST(FrontDoorTest, WithoutKeysOnlyExpectedHostNamesAreServed) {
  ServerOptions o;
  o.extra_args = {"--allowed-host", "redrive.test"};
  ServerProcess server(o);
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  auto get_with_host = [&](const std::string& host) {
    return c.RawExchange("GET /api/v1/queues HTTP/1.1\r\nHost: " + host +
                         "\r\nConnection: close\r\n\r\n");
  };
  std::string rebound = get_with_host("rebind.evil.example:" + std::to_string(c.port()));
  EXPECT_EQ(StatusOf(rebound), 403) << rebound;
  EXPECT_NE(rebound.find("--allowed-host"), std::string::npos) << rebound;
  for (const std::string& host : {"localhost:" + std::to_string(c.port()), Authority(server),
                                  std::string("[::1]:7070"), std::string("redrive.test:7070")}) {
    EXPECT_EQ(StatusOf(get_with_host(host)), 200) << host;
  }
  EXPECT_EQ(server.Stop(), 0);
}

// A fresh server per test: failed keys are counted per address across tests.
class KeyedFrontDoorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions o;
    o.env = {{"REDRIVE_API_KEYS", "admin:adm-key"}};
    o.extra_args = {"--auth-failure-limit", "3", "--auth-failure-window", "1h"};
    server_ = std::make_unique<ServerProcess>(o);
    ASSERT_TRUE(server_->Start());
  }
  void TearDown() override {
    if (server_) {
      EXPECT_EQ(server_->Stop(), 0);
    }
  }
  std::unique_ptr<ServerProcess> server_;
};

// Before issue 10 the server read (and held) the whole body first, then said 401.
TEST_F(KeyedFrontDoorTest, UnauthenticatedUploadIsRefusedBeforeItsBody) {
  HttpClient c = server_->Client();
  std::unique_ptr<RawConnection> conn = c.Connect();
  ASSERT_TRUE(conn->connected());
  ASSERT_TRUE(conn->Send("POST /api/v1/jobs HTTP/1.1\r\nHost: " + Authority(*server_) +
                         "\r\nContent-Type: application/json\r\n"
                         "Content-Length: 15728640\r\n\r\n"));
  HttpResponse r = conn->ReadResponse();  // not one byte of the body was sent
  EXPECT_EQ(r.status, 401) << r.error;
  EXPECT_NE(r.body.find("UNAUTHORIZED"), std::string::npos) << r.body;
  EXPECT_TRUE(conn->peer_closed());
}

TEST_F(KeyedFrontDoorTest, FailedKeysAreRateLimitedAndLoggedWithoutTheKey) {
  HttpClient c = server_->Client();
  for (int i = 1; i <= 3; ++i) {
    c.set_bearer_token("guess-key-" + std::to_string(i));
    EXPECT_EQ(c.Get("/api/v1/me").status, 401);
  }
  c.set_bearer_token("adm-key");  // right, but too late: the answer must not tell
  HttpResponse limited = c.Get("/api/v1/me");
  EXPECT_EQ(limited.status, 429) << limited.body;
  EXPECT_NE(limited.body.find("RATE_LIMITED"), std::string::npos) << limited.body;
  ASSERT_NE(limited.header("retry-after"), nullptr);
  EXPECT_GT(std::stoi(*limited.header("retry-after")), 3000);  // most of the hour
  EXPECT_EQ(c.Get("/health").status, 200);                     // public routes still answer

  const std::string log = server_->Stderr();
  EXPECT_NE(log.find("127.0.0.1: authentication failed on GET /api/v1/me"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("guess-key"), std::string::npos) << log;
}

TEST(FrontDoorFlagsTest, ConnectionsOverMaxConnectionsGet503) {
  ServerOptions o;
  o.extra_args = {"--max-connections", "1"};
  ServerProcess server(o);
  ASSERT_TRUE(server.Start());
  HttpClient first = server.Client();
  ASSERT_EQ(first.Get("/health").status, 200);  // keeps its connection open
  std::string refused = server.Client().RawExchange(
      "GET /health HTTP/1.1\r\nHost: " + Authority(server) + "\r\n\r\n");
  EXPECT_EQ(StatusOf(refused), 503) << refused;
  EXPECT_NE(refused.find("SERVICE_UNAVAILABLE"), std::string::npos) << refused;
  EXPECT_EQ(first.Get("/health").status, 200);
  EXPECT_EQ(server.Stop(), 0);
}

}  // namespace
}  // namespace redrive::e2e
