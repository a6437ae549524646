// The real binary on SQLite files it must not serve: a second server on a
// file another server holds is refused — until that one dies, even by
// kill -9.
// Both run on SQLite whatever REDRIVE_TEST_STORE says.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <string>

#include "e2e/support/http_client.h"
#include "e2e/support/server_process.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A server on the SQLite file of its own data dir.
void UseSqlite(ServerProcess& server) {
  server.options().store = "sqlite:" + server.db_path().string();
}

// Starting `redrive serve` on a file that must be refused: a refusal comes
// within seconds; a server that starts anyway is killed at the timeout.
ExitResult ServeOnce(const std::string& store, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--store", store};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunRedrive(args, std::chrono::seconds(15));
}

TEST(SqliteSafetyTest, SecondServerOnOneFileIsRefusedUntilTheFirstDies) {
  ServerProcess first;
  UseSqlite(first);
  ASSERT_TRUE(first.Start());
  ExitResult refused = ServeOnce(first.store_url());
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_TRUE(Contains(refused.err, "another redrive server (pid " + std::to_string(first.pid()) +
                                        ") is already serving " + first.db_path().string()))
      << refused.err;
  EXPECT_TRUE(Contains(refused.err, "one server per SQLite file")) << refused.err;
  EXPECT_FALSE(Contains(refused.out, "listening on"));
  // The refused one did not disturb the first.
  HttpClient c = first.Client();
  EXPECT_EQ(c.JsonRequest("POST", "/api/v1/jobs", json::object{{"queue_name", "q"}, {"payload", 1}})
                .status,
            201);

  EXPECT_EQ(first.Kill(), 128 + 9);  // no clean exit: the kernel drops the lock
  ServerProcess second;
  second.options().store = first.store_url();
  ASSERT_TRUE(second.Start());
  auto stats = second.Client().JsonRequest("GET", "/api/v1/jobs/stats?queue_name=q");
  ASSERT_EQ(stats.status, 200);
  EXPECT_EQ(stats.body.at("total").as_int64(), 1);
  EXPECT_EQ(second.Stop(), 0) << second.Stderr();
}

}  // namespace
}  // namespace redrive::e2e
