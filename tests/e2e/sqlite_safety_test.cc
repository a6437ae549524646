// The real binary on SQLite files it must not serve: a damaged database is
// refused at start (the integrity check), and so is a second server on a
// file another server holds — until that one dies, even by kill -9.
// Both run on SQLite whatever REDRIVE_TEST_STORE says.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
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

// Overwrites page `page` (1-based, 4 KiB pages) of the file with garbage.
void DamagePage(const std::filesystem::path& db, int64_t page) {
  std::fstream f(db, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f.is_open()) << db;
  f.seekp((page - 1) * 4096);
  const std::string garbage(4096, '\xA5');
  f.write(garbage.data(), garbage.size());
}

// Starting `redrive serve` on a file that must be refused: a refusal comes
// within seconds; a server that starts anyway is killed at the timeout.
ExitResult ServeOnce(const std::string& store, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"serve", "--listen", "127.0.0.1:0", "--store", store};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunRedrive(args, std::chrono::seconds(15));
}

TEST(SqliteSafetyTest, DamagedDatabaseIsRefusedAtStart) {
  ServerProcess server;
  UseSqlite(server);
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  json::array jobs;
  for (int k = 0; k < 50; ++k) jobs.push_back(json::object{{"payload", std::string(2000, 'x')}});
  for (int i = 0; i < 20; ++i) {
    auto r = c.JsonRequest("POST", "/api/v1/jobs/bulk",
                           json::object{{"queue_name", "q"}, {"jobs", jobs}});
    ASSERT_EQ(r.status, 200) << r.raw.body;
  }
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();  // checkpoints everything into the file
  const std::filesystem::path db = server.db_path();
  const int64_t pages = static_cast<int64_t>(std::filesystem::file_size(db)) / 4096;
  ASSERT_GT(pages, 200);
  DamagePage(db, pages / 2);  // a page of job rows, which start-up itself never reads

  ExitResult refused = ServeOnce(server.store_url());
  EXPECT_EQ(refused.exit_code, 1) << refused.err;
  EXPECT_TRUE(Contains(refused.err, "the database file " + db.string() + " is damaged"))
      << refused.err;
  EXPECT_TRUE(Contains(refused.err, "restore the latest backup")) << refused.err;
  EXPECT_TRUE(Contains(refused.err, "--skip-integrity-check")) << refused.err;
  EXPECT_FALSE(Contains(refused.out, "listening on"));

  // The operator's way out: start anyway, knowingly.
  server.options().extra_args = {"--skip-integrity-check"};
  ASSERT_TRUE(server.Start());
  EXPECT_TRUE(Contains(server.Stderr(), "integrity check of " + db.string() + " skipped"));
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

TEST(SqliteSafetyTest, CleanDatabasePassesTheCheck) {
  ServerProcess server;
  UseSqlite(server);
  ASSERT_TRUE(server.Start());
  ASSERT_TRUE(server.Restart());
  EXPECT_TRUE(Contains(server.Stderr(), "integrity check of " + server.db_path().string() + ": ok"))
      << server.Stderr();
  EXPECT_EQ(server.Client().Get("/health/ready").status, 200);
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
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
