// The `redrive` binary as an operator meets it: it starts, answers /health,
// exits 0 on SIGTERM, and refuses bad starts with one clear line.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "e2e/support/http_client.h"
#include "e2e/support/long_polls.h"
#include "e2e/support/server_process.h"
#include "e2e/support/temp_dir.h"

namespace redrive::e2e {
namespace {

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(ServerSmokeTest, HealthAnswersAndSigtermExitsZero) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  HttpClient client = server.Client();
  HttpResponse health = client.Get("/health");
  EXPECT_EQ(health.status, 200) << health.error << health.body;
  // Spooled's HealthResponse fields, and Redrive's version.
  JsonResponse shape = client.JsonRequest("GET", "/health");
  ASSERT_TRUE(shape.body.is_object()) << shape.raw.body;
  EXPECT_EQ(shape.body.at("status"), "healthy");
  EXPECT_EQ(shape.body.at("database"), true);
  EXPECT_EQ(shape.body.at("cache"), true);
  EXPECT_TRUE(shape.body.at("version").is_string());
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

// The server warms its write path up before it listens (Engine::WarmUp) and
// rolls it back: a new server shows no queue, job or metric of it.
TEST(ServerSmokeTest, AStartedServerShowsNothingOfItsWarmUp) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  HttpClient client = server.Client();
  JsonResponse queues = client.JsonRequest("GET", "/api/v1/queues");
  ASSERT_EQ(queues.status, 200) << queues.raw.body;
  ASSERT_TRUE(queues.body.is_array()) << queues.raw.body;
  EXPECT_TRUE(queues.body.as_array().empty()) << queues.raw.body;
  HttpResponse metrics = client.Get("/metrics");
  ASSERT_EQ(metrics.status, 200);
  EXPECT_FALSE(Contains(metrics.body, "warm-up")) << metrics.body;
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
  EXPECT_FALSE(Contains(server.Stderr(), "warm-up")) << server.Stderr();
}

TEST(ServerSmokeTest, SigtermAnswersLongPollsAndExitsPromptly) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  JsonResponse claim;
  std::thread worker([&] {
    HttpClient client = server.Client();
    claim = client.JsonRequest("POST", "/api/v1/jobs/claim",
                               {{"queue_name", "q"}, {"worker_id", "w"}, {"wait_ms", 20000}});
  });
  // Stop only once the claim is parked in the server, not still on its way.
  HttpClient observer = server.Client();
  ASSERT_TRUE(WaitForParkedClaim(observer, "q")) << server.Stderr();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
  worker.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(claim.status, 200) << claim.raw.error << claim.raw.body;
}

TEST(ServerSmokeTest, RestartKeepsServing) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  ASSERT_TRUE(server.Restart());
  EXPECT_EQ(server.Client().Get("/health").status, 200);
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

TEST(ServerSmokeTest, PortInUseFailsWithClearMessage) {
  ServerProcess first;
  ASSERT_TRUE(first.Start());
  TempDir dir;
  ExitResult second = RunRedrive({"serve", "--listen", "127.0.0.1:" + std::to_string(first.port()),
                                  "--store", "sqlite:" + (dir.path() / "r.db").string()});
  EXPECT_NE(second.exit_code, 0);
  EXPECT_TRUE(Contains(second.err, "cannot listen on 127.0.0.1:" + std::to_string(first.port())))
      << second.err;
  EXPECT_TRUE(Contains(second.err, "in use")) << second.err;
  EXPECT_FALSE(Contains(second.out, "listening on"));
}

TEST(ServerSmokeTest, NonLoopbackWithoutKeysIsRefused) {
  TempDir dir;
  ExitResult r = RunRedrive(
      {"serve", "--listen", "0.0.0.0:0", "--store", "sqlite:" + (dir.path() / "r.db").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(Contains(r.err, "--insecure-no-auth")) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // Same through the environment twin.
  r = RunRedrive({"serve"}, std::chrono::seconds(30),
                 {{"REDRIVE_LISTEN", "0.0.0.0:0"},
                  {"REDRIVE_STORE", "sqlite:" + (dir.path() / "r.db").string()}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  // A short key is refused there too, without echoing it.
  r = RunRedrive({"serve"}, std::chrono::seconds(30),
                 {{"REDRIVE_LISTEN", "0.0.0.0:0"},
                  {"REDRIVE_API_KEYS", "admin:tiny"},
                  {"REDRIVE_STORE", "sqlite:" + (dir.path() / "r.db").string()}});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(Contains(r.err, "at least 16")) << r.err;
  EXPECT_FALSE(Contains(r.err, "tiny")) << r.err;
}

TEST(ServerSmokeTest, GarbageGets400AndOthersAreServed) {
  ServerProcess server;
  ASSERT_TRUE(server.Start());
  HttpClient client = server.Client();
  ASSERT_EQ(client.Get("/health").status, 200);  // a kept-alive connection
  std::string answer = client.RawExchange("\x01\x02 NOT HTTP AT ALL\r\n\r\n");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 400")) << answer;
  EXPECT_TRUE(Contains(answer, R"("code":"BAD_REQUEST")")) << answer;
  EXPECT_EQ(client.Get("/health").status, 200);
  EXPECT_EQ(server.Client().Get("/health").status, 200);  // a new connection
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

TEST(ServerSmokeTest, OversizeBodyGets413) {
  ServerOptions options;
  options.extra_args = {"--max-body-bytes", "1024", "--max-payload-bytes", "512"};
  ServerProcess server(options);
  ASSERT_TRUE(server.Start());
  std::string answer = server.Client().RawExchange(
      "POST /api/v1/jobs HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
      "Content-Length: 5000\r\n\r\n{\"queue_name\":\"q\",\"payload\":\"");
  EXPECT_TRUE(answer.starts_with("HTTP/1.1 413")) << answer;
  EXPECT_TRUE(Contains(answer, R"("code":"PAYLOAD_TOO_LARGE")")) << answer;
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

TEST(ServerSmokeTest, VersionAndBadFlags) {
  ExitResult version = RunRedrive({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out, "redrive " REDRIVE_VERSION "\n");

  ExitResult bad = RunRedrive({"serve", "--no-such-flag"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.err, "--no-such-flag")) << bad.err;
  EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1) << bad.err;

  ExitResult bad_listen = RunRedrive({"serve", "--listen", "nonsense"});
  EXPECT_NE(bad_listen.exit_code, 0);
  EXPECT_TRUE(Contains(bad_listen.err, "--listen")) << bad_listen.err;
}

TEST(ServerSmokeTest, UnusableStoresFailClearly) {
  // Nothing listens on port 1: refused at once, named without its password.
  ExitResult pg = RunRedrive(
      {"serve", "--listen", "127.0.0.1:0", "--store", "postgres://app:s3cret@127.0.0.1:1/db"});
  EXPECT_NE(pg.exit_code, 0);
  EXPECT_TRUE(Contains(pg.err, "cannot open store postgres://app:***@127.0.0.1:1/db")) << pg.err;
  EXPECT_FALSE(Contains(pg.err, "s3cret")) << pg.err;

  TempDir dir;
  std::filesystem::path corrupt = dir.path() / "corrupt.db";
  std::ofstream(corrupt) << std::string(8192, 'x');
  ExitResult bad =
      RunRedrive({"serve", "--listen", "127.0.0.1:0", "--store", "sqlite:" + corrupt.string()});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.err, "store")) << bad.err;
  EXPECT_FALSE(Contains(bad.out, "listening on"));
}

}  // namespace
}  // namespace redrive::e2e
