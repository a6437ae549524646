// The test cluster itself: it starts, keeps data across a restart and a
// kill -9, and leaves nothing running once destroyed.
#include "support/pg_cluster.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

namespace redrive::testing {
namespace {

TEST(PgClusterTest, StartsKeepsDataAcrossRestartAndKillAndStopsByPid) {
  auto started = PgCluster::Start();
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  PgCluster& pg = **started;
  const pid_t first = pg.pid();
  const std::filesystem::path dir = pg.data_dir();
  ASSERT_GT(first, 0);

  auto db = pg.CreateUniqueDatabase();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE(pg.Psql("CREATE TABLE t (v int); INSERT INTO t VALUES (7)", *db).ok());
  auto fsync = pg.Psql("SHOW fsync", *db);
  ASSERT_TRUE(fsync.ok());
  EXPECT_EQ(*fsync, "on\n");

  ASSERT_TRUE(pg.Restart().ok());
  EXPECT_NE(pg.pid(), first);
  EXPECT_EQ(*pg.Psql("SELECT v FROM t", *db), "7\n");

  // kill -9 of the whole server: committed data survives (fsync=on).
  ASSERT_TRUE(pg.Psql("INSERT INTO t VALUES (8)", *db).ok());
  const pid_t second = pg.pid();
  ASSERT_TRUE(pg.Kill().ok());
  EXPECT_FALSE(pg.running());
  EXPECT_NE(::kill(second, 0), 0);
  EXPECT_FALSE(pg.Psql("SELECT 1", *db).ok());
  ASSERT_TRUE(pg.Restart().ok());
  EXPECT_EQ(*pg.Psql("SELECT sum(v) FROM t", *db), "15\n");

  const pid_t last = pg.pid();
  started->reset();
  EXPECT_NE(::kill(last, 0), 0);
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(PgClusterTest, SharedClusterServesFreshDatabases) {
  PgCluster& pg = PgCluster::Shared();
  auto a = pg.CreateUniqueDatabase();
  auto b = pg.CreateUniqueDatabase();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(*pg.Psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", *a), "0\n");
  EXPECT_EQ(&pg, &PgCluster::Shared());
}

}  // namespace
}  // namespace redrive::testing
