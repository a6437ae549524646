// What putting Redrive in production relies on, against the real binary:
// `serve --config FILE` and its precedence (flags > environment > file >
// defaults; unknown keys refused), `redrive backup` of a SQLite store under
// a live server and a restore from it, and the refusal of a store whose
// schema is newer than the binary (a downgrade). On SQLite whatever
// REDRIVE_TEST_STORE says.
#include <sqlite3.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/support/http_client.h"
#include "e2e/support/server_process.h"
#include "e2e/support/temp_dir.h"
#include "e2e/support/wait.h"
#include "support/pg_cluster.h"

namespace redrive::e2e {
namespace {

namespace json = boost::json;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// A server on the SQLite file of its own data dir, reading `config`.
void UseSqliteAndConfig(ServerProcess& server, const std::filesystem::path& config) {
  server.options().store = "sqlite:" + server.db_path().string();
  server.options().extra_args.insert(server.options().extra_args.begin(),
                                     {"--config", config.string()});
}

// True once the latest start-up line ("..., node NAME, store ...") names
// `node`. The line follows "listening on", so it is waited for.
bool StartedAs(const ServerProcess& server, const std::string& node) {
  return WaitUntil([&] {
    const std::string log = server.Stderr();
    const size_t at = log.rfind(", node ");
    return at != std::string::npos && log.compare(at + 7, node.size() + 7, node + ", store") == 0;
  });
}

TEST(ConfigFileTest, FlagsBeatTheEnvironmentWhichBeatsTheFileWhichBeatsTheDefault) {
  TempDir dir;
  const auto config = dir.path() / "redrive.toml";
  WriteFile(config,
            "# a comment\n"
            "node-id = \"from-file\"   # trailing comment\n"
            "max_body_bytes = 4096\n"
            "max-payload-bytes = 2048\n");

  ServerProcess server;
  UseSqliteAndConfig(server, config);
  ASSERT_TRUE(server.Start());
  EXPECT_TRUE(StartedAs(server, "from-file")) << server.Stderr();
  // A file value that is not the node id took effect too ("_" for "-").
  HttpClient c = server.Client();
  EXPECT_EQ(c.Request("POST", "/api/v1/jobs", std::string(5000, ' ')).status, 413);
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();

  server.options().env = {{"REDRIVE_NODE_ID", "from-env"}};
  ASSERT_TRUE(server.Start());
  EXPECT_TRUE(StartedAs(server, "from-env")) << server.Stderr();
  ASSERT_EQ(server.Stop(), 0);

  server.options().extra_args.insert(server.options().extra_args.end(), {"--node-id", "from-flag"});
  ASSERT_TRUE(server.Start());
  EXPECT_TRUE(StartedAs(server, "from-flag")) << server.Stderr();
  ASSERT_EQ(server.Stop(), 0);

  // Without the file, the default (HOST-PID-RANDOM).
  ServerProcess plain;
  plain.options().store = "sqlite:" + plain.db_path().string();
  ASSERT_TRUE(plain.Start());
  ASSERT_TRUE(WaitUntil([&] { return Contains(plain.Stderr(), ", store "); })) << plain.Stderr();
  EXPECT_FALSE(Contains(plain.Stderr(), "from-file")) << plain.Stderr();
}

TEST(ConfigFileTest, RepeatableFlagsTakeArraysAndOnOffFlagsBooleans) {
  TempDir dir;
  const auto config = dir.path() / "redrive.toml";
  WriteFile(config,
            "api-key = [\"admin:admin-key-0123456789\", 'viewer:viewer-key#0123456789']\n"
            "insecure-no-auth = false\n");
  std::filesystem::permissions(
      config, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ServerProcess server;
  UseSqliteAndConfig(server, config);
  ASSERT_TRUE(server.Start());
  EXPECT_FALSE(Contains(server.Stderr(), "other users may read it")) << server.Stderr();
  HttpClient c = server.Client();
  EXPECT_EQ(c.Get("/api/v1/jobs/stats?queue_name=q").status, 401);
  c.set_bearer_token("viewer-key#0123456789");  // '#' inside a string is no comment
  EXPECT_EQ(c.Get("/api/v1/jobs/stats?queue_name=q").status, 200);
  c.set_bearer_token("admin-key-0123456789");
  EXPECT_EQ(c.Get("/api/v1/jobs/stats?queue_name=q").status, 200);
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();

  // Keys in a file others may read: served, with a warning.
  std::filesystem::permissions(config, std::filesystem::perms::others_read,
                               std::filesystem::perm_options::add);
  ASSERT_TRUE(server.Start());
  EXPECT_TRUE(Contains(server.Stderr(), "redrive: warning: " + config.string() +
                                            " holds API keys and other users may read it"))
      << server.Stderr();
}

TEST(ConfigFileTest, TheShippedConfigFileIsValid) {
  ServerProcess server;
  UseSqliteAndConfig(server, std::filesystem::path(REDRIVE_SOURCE_DIR) / "deploy/redrive.toml");
  // It listens on 0.0.0.0 and so wants keys; ServerProcess's --listen and
  // --store flags win over the file's.
  server.options().env = {{"REDRIVE_API_KEYS", "admin:admin-key-0123456789"}};
  ASSERT_TRUE(server.Start());
  EXPECT_EQ(server.host(), "127.0.0.1");
  HttpClient c = server.Client();
  EXPECT_EQ(c.Get("/api/v1/jobs/stats?queue_name=q").status, 401);
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();
  // Its log-format = "json" took effect.
  const std::string log = server.Stderr();
  ASSERT_FALSE(log.empty());
  boost::system::error_code ec;
  json::parse(log.substr(0, log.find('\n')), ec);
  EXPECT_FALSE(ec) << log;
}

TEST(ConfigFileTest, BadFilesAreRefusedNamingTheFileAndLine) {
  TempDir dir;
  struct Case {
    std::string text;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"listen = \"127.0.0.1:0\"\nlisen = \"127.0.0.1:0\"\n", ":2: unknown key 'lisen'"},
      {"[serve]\nlisten = \"127.0.0.1:0\"\n", ":1: tables ([section]) are not supported"},
      {"insecure-no-auth = \"yes\"\n", ":1: insecure-no-auth takes true or false"},
      {"listen = [\"a\", \"b\"]\n", ":1: listen takes one value, not an array"},
      {"node-id = \"a\"\nnode_id = \"b\"\n", ":2: key 'node-id' given twice"},
      {"listen = \"unterminated\n", ":1: unterminated string"},
      {"listen\n", ":1: expected KEY = VALUE"},
      {"max-tags = many\n", ":1: expected a \"string\""},
      {"config = \"other.toml\"\n", ":1: unknown key 'config'"},
  };
  for (const Case& c : cases) {
    const auto config = dir.path() / "bad.toml";
    WriteFile(config, c.text);
    ExitResult r = RunRedrive({"serve", "--config", config.string(), "--store",
                               "sqlite:" + (dir.path() / "never.db").string()});
    EXPECT_EQ(r.exit_code, 2) << c.text << r.err;
    EXPECT_TRUE(Contains(r.err, config.string() + c.error)) << c.text << r.err;
    EXPECT_FALSE(Contains(r.out, "listening on")) << c.text;
  }
  ExitResult missing = RunRedrive({"serve", "--config", (dir.path() / "none.toml").string()});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(Contains(missing.err, "--config: cannot read")) << missing.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "never.db"));
}

// Jobs in every state the copy must carry: pending, processing, completed.
std::vector<std::string> EnqueueSome(HttpClient& c, int n) {
  std::vector<std::string> ids;
  for (int i = 0; i < n; ++i) {
    auto r = c.JsonRequest("POST", "/api/v1/jobs",
                           json::object{{"queue_name", "q"}, {"payload", json::object{{"n", i}}}});
    EXPECT_EQ(r.status, 201) << r.raw.body;
    ids.push_back(std::string(r.body.at("id").as_string()));
  }
  return ids;
}

TEST(BackupTest, CopiesTheStoreUnderALiveServerAndAServerOnTheCopySeesTheJobs) {
  ServerProcess server;
  server.options().store = "sqlite:" + server.db_path().string();
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  const std::vector<std::string> ids = EnqueueSome(c, 30);
  auto claimed = c.JsonRequest("POST", "/api/v1/jobs/claim",
                               json::object{{"queue_name", "q"}, {"worker_id", "w"}, {"limit", 5}});
  ASSERT_EQ(claimed.status, 200) << claimed.raw.body;
  const json::object& first = claimed.body.at("jobs").as_array().at(0).as_object();
  auto done =
      c.JsonRequest("POST", "/api/v1/jobs/" + std::string(first.at("id").as_string()) + "/complete",
                    json::object{{"worker_id", "w"}, {"lease_id", first.at("lease_id")}});
  ASSERT_EQ(done.status, 200) << done.raw.body;

  // Another client keeps enqueueing while the copy is taken.
  std::atomic<bool> stop{false};
  std::atomic<int> concurrent{0};
  std::thread producer([&] {
    HttpClient p = server.Client();
    while (!stop) {
      auto e = p.JsonRequest("POST", "/api/v1/jobs",
                             json::object{{"queue_name", "q"}, {"payload", "during"}});
      if (e.status != 201) break;
      ++concurrent;
    }
  });
  ASSERT_TRUE(WaitUntil([&] { return concurrent > 0; }));
  TempDir backups;
  const auto copy = backups.path() / "redrive-backup.db";
  ExitResult r = RunRedrive({"backup", "--store", server.store_url(), copy.string()});
  stop = true;
  producer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "backed up")) << r.out;
  EXPECT_TRUE(std::filesystem::exists(copy));
  EXPECT_FALSE(std::filesystem::exists(copy.string() + ".partial"));
  EXPECT_FALSE(std::filesystem::exists(copy.string() + "-wal"));  // one self-contained file

  // The live server kept working throughout; what it writes now is not in the copy.
  EnqueueSome(c, 3);
  auto stats = c.JsonRequest("GET", "/api/v1/jobs/stats?queue_name=q");
  EXPECT_EQ(stats.body.at("total").as_int64(), 33 + concurrent);

  // A backup never overwrites.
  ExitResult again = RunRedrive({"backup", "--store", server.store_url(), copy.string()});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_TRUE(Contains(again.err, "already exists")) << again.err;

  // Restore: a server on the copy (while the first still runs on the original).
  ServerProcess restored;
  restored.options().store = "sqlite:" + copy.string();
  ASSERT_TRUE(restored.Start());
  HttpClient rc = restored.Client();
  auto restored_stats = rc.JsonRequest("GET", "/api/v1/jobs/stats?queue_name=q");
  ASSERT_EQ(restored_stats.status, 200) << restored_stats.raw.body;
  // The copy is one snapshot: everything before it, some of what came during it.
  const int64_t restored_total = restored_stats.body.at("total").as_int64();
  EXPECT_GE(restored_total, 30 + 1) << restored_stats.raw.body;
  EXPECT_LE(restored_total, 30 + concurrent) << restored_stats.raw.body;
  EXPECT_EQ(restored_stats.body.at("processing").as_int64(), 4) << restored_stats.raw.body;
  EXPECT_EQ(restored_stats.body.at("completed").as_int64(), 1) << restored_stats.raw.body;
  auto job = rc.JsonRequest("GET", "/api/v1/jobs/" + ids.back());
  ASSERT_EQ(job.status, 200) << job.raw.body;
  EXPECT_EQ(job.body.at("payload").at("n").as_int64(), 29);
  EXPECT_EQ(restored.Stop(), 0) << restored.Stderr();
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();
}

// --compact writes the rows without the pages deleted jobs freed (a store's
// file never shrinks by itself): much smaller than a page copy of the same
// store, and a server on it sees every job that was left.
TEST(BackupTest, ACompactCopyLeavesOutThePagesDeletedJobsFreed) {
  ServerProcess server;
  server.options().store = "sqlite:" + server.db_path().string();
  ASSERT_TRUE(server.Start());
  HttpClient c = server.Client();
  const std::vector<std::string> kept = EnqueueSome(c, 5);
  const std::string big(4000, 'x');
  for (int i = 0; i < 300; ++i) {
    auto r = c.JsonRequest("POST", "/api/v1/jobs",
                           json::object{{"queue_name", "big"}, {"payload", big}});
    ASSERT_EQ(r.status, 201) << r.raw.body;
  }
  auto deleted = c.JsonRequest("DELETE", "/api/v1/queues/big?delete_jobs=true");
  ASSERT_EQ(deleted.status, 204) << deleted.raw.body;

  TempDir backups;
  const auto pages = backups.path() / "pages.db";
  const auto compact = backups.path() / "compact.db";
  ExitResult p = RunRedrive({"backup", "--store", server.store_url(), pages.string()});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  ExitResult r =
      RunRedrive({"backup", "--compact", "--store", server.store_url(), compact.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "backed up")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(compact.string() + ".partial"));
  EXPECT_FALSE(std::filesystem::exists(compact.string() + "-wal"));
  const auto pages_size = std::filesystem::file_size(pages);
  const auto compact_size = std::filesystem::file_size(compact);
  EXPECT_GT(pages_size, 300u * 4000u) << "the deleted payloads' pages are in a page copy";
  EXPECT_LT(compact_size * 3, pages_size) << compact_size << " of " << pages_size;
  EXPECT_EQ(server.Stop(), 0) << server.Stderr();

  ServerProcess restored;
  restored.options().store = "sqlite:" + compact.string();
  ASSERT_TRUE(restored.Start());
  HttpClient rc = restored.Client();
  auto stats = rc.JsonRequest("GET", "/api/v1/jobs/stats?queue_name=q");
  ASSERT_EQ(stats.status, 200) << stats.raw.body;
  EXPECT_EQ(stats.body.at("total").as_int64(), 5) << stats.raw.body;
  auto job = rc.JsonRequest("GET", "/api/v1/jobs/" + kept.back());
  ASSERT_EQ(job.status, 200) << job.raw.body;
  EXPECT_EQ(job.body.at("payload").at("n").as_int64(), 4);
  EXPECT_EQ(restored.Stop(), 0) << restored.Stderr();
}

TEST(BackupTest, RefusesPostgresAndMissingFiles) {
  TempDir dir;
  ExitResult pg = RunRedrive(
      {"backup", "--store", "postgres://u@localhost/db", (dir.path() / "x.db").string()});
  EXPECT_EQ(pg.exit_code, 2);
  EXPECT_TRUE(Contains(pg.err, "pg_dump")) << pg.err;
  ExitResult none = RunRedrive({"backup", "--store", "sqlite:" + (dir.path() / "none.db").string(),
                                (dir.path() / "x.db").string()});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_TRUE(Contains(none.err, "no database file at")) << none.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "x.db"));
}

// Marks the store as written by a newer binary: a schema version past ours.
void PretendNewerSchema(const std::filesystem::path& db) {
  sqlite3* conn = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &conn), SQLITE_OK);
  char* error = nullptr;
  const int rc =
      sqlite3_exec(conn, "INSERT INTO schema_migrations (version, applied_at) VALUES (999, 0)",
                   nullptr, nullptr, &error);
  EXPECT_EQ(rc, SQLITE_OK) << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(conn);
}

TEST(UpgradeTest, AStoreFromANewerBinaryIsRefusedAndLeftAlone) {
  ServerProcess server;
  server.options().store = "sqlite:" + server.db_path().string();
  ASSERT_TRUE(server.Start());
  EnqueueSome(*std::make_unique<HttpClient>(server.Client()), 1);
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();
  PretendNewerSchema(server.db_path());

  ExitResult r = RunRedrive({"serve", "--listen", "127.0.0.1:0", "--store", server.store_url()},
                            std::chrono::seconds(15));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Contains(r.err, "database schema version 999 is newer than this binary supports"))
      << r.err;
  EXPECT_FALSE(Contains(r.out, "listening on"));

  // Nothing was changed: the version is still the newer one, the job still there.
  sqlite3* conn = nullptr;
  ASSERT_EQ(sqlite3_open(server.db_path().c_str(), &conn), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(conn,
                               "SELECT (SELECT max(version) FROM schema_migrations), "
                               "(SELECT count(*) FROM jobs)",
                               -1, &stmt, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(stmt, 0), 999);
  EXPECT_EQ(sqlite3_column_int(stmt, 1), 1);
  sqlite3_finalize(stmt);
  sqlite3_close(conn);
}

// The same refusal on PostgreSQL, where nodes sharing a database may run
// different binaries. Runs in deploy_test.postgres (REDRIVE_TEST_STORE).
TEST(UpgradeTest, APostgresStoreFromANewerBinaryIsRefused) {
  if (!TestingOnPostgres()) GTEST_SKIP() << "PostgreSQL only: run by deploy_test.postgres";
  ServerProcess server;  // on a fresh database of the shared test cluster
  ASSERT_TRUE(server.Start());
  EnqueueSome(*std::make_unique<HttpClient>(server.Client()), 1);
  ASSERT_EQ(server.Stop(), 0) << server.Stderr();
  const std::string url = server.store_url();
  const std::string db = url.substr(url.rfind('/') + 1);
  testing::PgCluster& pg = testing::PgCluster::Shared();
  auto inserted =
      pg.Psql("INSERT INTO redrive.schema_migrations (version, applied_at) VALUES (999, 0)", db);
  ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();

  ExitResult r =
      RunRedrive({"serve", "--listen", "127.0.0.1:0", "--store", url}, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(Contains(r.err, "schema version 999 is newer than this binary supports")) << r.err;
  EXPECT_FALSE(Contains(r.out, "listening on"));
  auto version = pg.Psql("SELECT max(version) FROM redrive.schema_migrations", db);
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(version->substr(0, 3), "999");
}

}  // namespace
}  // namespace redrive::e2e
