// The server's log as operators collect it: --log-format json writes one
// JSON object per line (time, level, node, request_id, message); every
// request gets an id, the client's X-Request-Id when sane, echoed in the
// response and named on the request's log lines; a failed authentication is
// logged at info with the client's address and never the key it presented.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/support/http_client.h"
#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;

constexpr char kAdminKey[] = "admin-key-0123456789";
constexpr char kGuessedKey[] = "guessed-key-ZYXWVUTSRQ";

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

ServerOptions WithKey(std::vector<std::string> extra) {
  ServerOptions o;
  o.extra_args = {"--api-key", std::string("admin:") + kAdminKey};
  o.extra_args.insert(o.extra_args.end(), extra.begin(), extra.end());
  return o;
}

// A request presenting a wrong key, with the request id `id` ("" for none).
HttpResponse FailAuthentication(HttpClient& client, const std::string& id) {
  Headers headers = {{"Authorization", std::string("Bearer ") + kGuessedKey}};
  if (!id.empty()) headers.emplace_back("X-Request-Id", id);
  return client.Request("GET", "/api/v1/jobs?queue_name=q", "", headers);
}

TEST(LoggingTest, JsonLinesParseAndTheAuthFailureLineHasTheAddressNotTheKey) {
  ServerProcess server(WithKey({"--log-format", "json"}));
  ASSERT_TRUE(server.Start());
  HttpClient client = server.Client();
  HttpResponse refused = FailAuthentication(client, "e2e-request-1");
  ASSERT_EQ(refused.status, 401) << refused.body;
  ASSERT_NE(refused.header("x-request-id"), nullptr);
  EXPECT_EQ(*refused.header("x-request-id"), "e2e-request-1");
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();

  const std::vector<std::string> lines = Lines(server.Stderr());
  ASSERT_GE(lines.size(), 3u) << server.Stderr();
  int auth_lines = 0;
  for (const std::string& line : lines) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);
    ASSERT_FALSE(ec) << "not JSON: " << line;
    ASSERT_TRUE(v.is_object()) << line;
    const json::object& o = v.as_object();
    ASSERT_TRUE(o.contains("time") && o.at("time").is_string()) << line;
    EXPECT_TRUE(o.at("time").as_string().ends_with("Z")) << line;  // UTC
    ASSERT_TRUE(o.contains("level") && o.at("level").is_string()) << line;
    ASSERT_TRUE(o.contains("message") && o.at("message").is_string()) << line;
    // Every line names the node, the start-up ones too.
    ASSERT_TRUE(o.contains("node") && o.at("node").is_string()) << line;
    EXPECT_FALSE(o.at("node").as_string().empty()) << line;
    EXPECT_FALSE(Contains(line, kGuessedKey)) << line;
    EXPECT_FALSE(Contains(line, kAdminKey)) << line;
    const std::string message(o.at("message").as_string());
    if (!Contains(message, "authentication failed")) continue;
    ++auth_lines;
    EXPECT_EQ(o.at("level").as_string(), "info") << line;
    EXPECT_TRUE(Contains(message, "127.0.0.1")) << line;  // who tried
    ASSERT_TRUE(o.contains("request_id")) << line;
    EXPECT_EQ(o.at("request_id").as_string(), "e2e-request-1") << line;
  }
  EXPECT_EQ(auth_lines, 1) << server.Stderr();
}

// Taking a duty is one line, whatever the store: on PostgreSQL the store's
// leadership logged it too, so every duty was announced twice.
TEST(LoggingTest, EachDutyTakenIsLoggedOnce) {
  ServerProcess server{ServerOptions{}};
  ASSERT_TRUE(server.Start());
  HttpClient client = server.Client();
  // Until the loop's first pass has taken it (bounded; usually at once).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!Contains(client.Get("/metrics").body, "redrive_duty_leader{duty=\"scheduler\"} 1") &&
         std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();
  int scheduler = 0;
  int taken = 0;
  for (const std::string& line : Lines(server.Stderr())) {
    if (!Contains(line, " now leads ")) continue;
    ++taken;
    if (line.ends_with(" now leads scheduler")) ++scheduler;
  }
  EXPECT_EQ(scheduler, 1) << server.Stderr();
  EXPECT_GE(taken, 1);
}

// A client's bytes in a log line (the target, on the debug line of every
// request) cannot break the line or its JSON: quotes and backslashes are
// escaped, bytes that are not UTF-8 replaced.
TEST(LoggingTest, HostileBytesStayInsideValidJson) {
  ServerProcess server(
      ServerOptions{.extra_args = {"--log-format", "json", "--log-level", "debug"}});
  ASSERT_TRUE(server.Start());
  const std::string reply = server.Client().RawExchange(
      "GET /caf\xC3\xA9/\xFF\"q\\ HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      "X-Request-Id: id\"with\\quote\r\nConnection: close\r\n\r\n");
  EXPECT_TRUE(Contains(reply, "X-Request-Id: id\"with\\quote")) << reply;
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();
  int request_lines = 0;
  for (const std::string& line : Lines(server.Stderr())) {
    boost::system::error_code ec;
    json::value v = json::parse(line, ec);  // Boost.JSON refuses invalid UTF-8
    ASSERT_FALSE(ec) << "not JSON: " << line;
    const json::object& o = v.as_object();
    if (!o.contains("request_id") || o.at("request_id").as_string() != "id\"with\\quote") continue;
    ++request_lines;
    EXPECT_TRUE(Contains(std::string(o.at("message").as_string()),
                         "\"GET /caf\xC3\xA9/\xEF\xBF\xBD\"q\\\""))
        << line;
  }
  EXPECT_EQ(request_lines, 1) << server.Stderr();
}

TEST(LoggingTest, EveryResponseCarriesARequestIdAndAnInsaneOneIsReplaced) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  HttpClient client = server.Client();

  HttpResponse plain = client.Get("/health");
  ASSERT_NE(plain.header("x-request-id"), nullptr);
  const std::string made_up = *plain.header("x-request-id");
  EXPECT_EQ(made_up.size(), 16u) << made_up;
  HttpResponse again = client.Get("/health");
  ASSERT_NE(again.header("x-request-id"), nullptr);
  EXPECT_NE(*again.header("x-request-id"), made_up);

  for (const std::string& bad : {std::string(129, 'r'), std::string("has space")}) {
    HttpResponse r = client.Request("GET", "/health", "", {{"X-Request-Id", bad}});
    ASSERT_NE(r.header("x-request-id"), nullptr);
    EXPECT_NE(*r.header("x-request-id"), bad);
    EXPECT_EQ(r.header("x-request-id")->size(), 16u);
  }
  // A refusal before any route runs (404) is answered with the id too.
  HttpResponse missing = client.Request("GET", "/nowhere", "", {{"X-Request-Id", "r-404"}});
  EXPECT_EQ(missing.status, 404);
  ASSERT_NE(missing.header("x-request-id"), nullptr);
  EXPECT_EQ(*missing.header("x-request-id"), "r-404");
}

TEST(LoggingTest, TextLinesNameTheRequestAndNotTheKey) {
  ServerProcess server(WithKey({}));
  ASSERT_TRUE(server.Start());
  HttpClient client = server.Client();
  ASSERT_EQ(FailAuthentication(client, "e2e-text-1").status, 401);
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();
  bool found = false;
  for (const std::string& line : Lines(server.Stderr())) {
    EXPECT_FALSE(Contains(line, kGuessedKey)) << line;
    if (!Contains(line, "authentication failed")) continue;
    found = true;
    EXPECT_TRUE(Contains(line, " info ")) << line;
    EXPECT_TRUE(Contains(line, "[req e2e-text-1] 127.0.0.1: authentication failed")) << line;
  }
  EXPECT_TRUE(found) << server.Stderr();
}

TEST(LoggingTest, AnUnknownLogFormatIsRefused) {
  ExitResult r = RunRedrive({"serve", "--listen", "127.0.0.1:0", "--log-format", "xml"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "--log-format: expected text or json")) << r.err;
}

}  // namespace
}  // namespace redrive::e2e
