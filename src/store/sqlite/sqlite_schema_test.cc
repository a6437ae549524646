#include "store/sqlite/sqlite_schema.h"

#include <gtest/gtest.h>

#include <vector>

#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store::sqlite {
namespace {

class SchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ConnectionOptions options;
    options.writer = true;
    auto conn = Connection::Open(dir_.File("s.db"), options);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    conn_ = std::move(*conn);
  }
  bool TableExists(const std::string& name) {
    auto stmt = conn_->Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
    stmt->Bind(1, name);
    return *stmt->Step();
  }
  int64_t MigrationRows() {
    auto stmt = conn_->Prepare("SELECT count(*), min(applied_at) FROM schema_migrations");
    EXPECT_TRUE(*stmt->Step());
    EXPECT_GT(stmt->Int64(1), 0);  // applied_at recorded
    return stmt->Int64(0);
  }
  TempDirForTest dir_;
  std::unique_ptr<Connection> conn_;
};

TEST_F(SchemaTest, FreshDatabaseGetsEveryMigrationOnce) {
  EXPECT_EQ(*SchemaVersion(*conn_), 0);
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(*SchemaVersion(*conn_), Migrations().back().version);
  for (const char* table :
       {"jobs", "job_payloads", "job_tags", "job_history", "queues", "workers"}) {
    EXPECT_TRUE(TableExists(table)) << table;
  }
  EXPECT_EQ(MigrationRows(), static_cast<int64_t>(Migrations().size()));
  ASSERT_TRUE(Migrate(*conn_).ok());  // a no-op the second time
  EXPECT_EQ(MigrationRows(), static_cast<int64_t>(Migrations().size()));
  EXPECT_FALSE(conn_->InTransaction());
}

TEST_F(SchemaTest, MigrationsAreNumberedInOrderWithoutGaps) {
  int expected = 1;
  for (const Migration& m : Migrations()) EXPECT_EQ(m.version, expected++) << m.name;
}

TEST_F(SchemaTest, AppliesOnlyMissingVersionsInOrder) {
  std::vector<Migration> v1 = {{1, "a", "CREATE TABLE a (x);"}};
  std::vector<Migration> v2 = {{1, "a", "CREATE TABLE a (x);"},
                               {2, "b", "CREATE TABLE b (y); INSERT INTO a VALUES (1);"}};
  ASSERT_TRUE(Migrate(*conn_, v1).ok());
  ASSERT_TRUE(Migrate(*conn_, v2).ok());  // would fail if 1 ran again
  EXPECT_EQ(*SchemaVersion(*conn_), 2);
  EXPECT_TRUE(TableExists("b"));
}

TEST_F(SchemaTest, AFailingMigrationChangesNothing) {
  std::vector<Migration> broken = {{1, "a", "CREATE TABLE a (x);"},
                                   {2, "broken", "CREATE TABLE b (y); NOT SQL;"}};
  Status st = Migrate(*conn_, broken);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("migration 2 (broken)"), std::string::npos) << st.ToString();
  EXPECT_FALSE(conn_->InTransaction());
  EXPECT_EQ(*SchemaVersion(*conn_), 0);
  EXPECT_FALSE(TableExists("a"));
  EXPECT_FALSE(TableExists("b"));
}

TEST_F(SchemaTest, RefusesADatabaseFromANewerBinary) {
  std::vector<Migration> newer = {{1, "a", "CREATE TABLE a (x);"}, {2, "b", "CREATE TABLE b (y);"}};
  ASSERT_TRUE(Migrate(*conn_, newer).ok());
  Status st = Migrate(*conn_, std::span(newer).first(1));
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable);
  EXPECT_NE(st.message().find("newer"), std::string::npos) << st.ToString();
  EXPECT_FALSE(conn_->InTransaction());
}

}  // namespace
}  // namespace redrive::store::sqlite
