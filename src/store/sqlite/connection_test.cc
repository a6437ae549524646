#include "store/sqlite/connection.h"

#include <gtest/gtest.h>

#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store::sqlite {
namespace {

class ConnectionTest : public ::testing::Test {
 protected:
  std::unique_ptr<Connection> Open(bool writer) {
    ConnectionOptions options;
    options.writer = writer;
    options.busy_timeout = std::chrono::milliseconds(1234);
    auto conn = Connection::Open(dir_.File("c.db"), options);
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    return conn.ok() ? std::move(*conn) : nullptr;
  }
  static std::string Pragma(Connection& conn, const std::string& name) {
    auto stmt = conn.Prepare("PRAGMA " + name);
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    EXPECT_TRUE(*stmt->Step());
    return stmt->String(0);
  }
  TempDirForTest dir_;
};

TEST_F(ConnectionTest, WriterAppliesDurabilityPragmas) {
  auto conn = Open(true);
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(Pragma(*conn, "journal_mode"), "wal");
  EXPECT_EQ(Pragma(*conn, "synchronous"), "2");  // FULL
  EXPECT_EQ(Pragma(*conn, "foreign_keys"), "1");
  EXPECT_EQ(Pragma(*conn, "busy_timeout"), "1234");
  EXPECT_EQ(Pragma(*conn, "query_only"), "0");
}

TEST_F(ConnectionTest, ReaderIsQueryOnly) {
  auto writer = Open(true);
  auto reader = Open(false);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(Pragma(*reader, "journal_mode"), "wal");
  EXPECT_EQ(Pragma(*reader, "query_only"), "1");
  EXPECT_FALSE(reader->ExecScript("CREATE TABLE t (x)").ok());
}

TEST_F(ConnectionTest, ReaderDoesNotCreateAMissingFile) {
  ConnectionOptions options;
  auto conn = Connection::Open(dir_.File("absent.db"), options);
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), ErrorCode::kUnavailable);
}

TEST_F(ConnectionTest, StatementsArePreparedOnceAndResetOnReuse) {
  auto conn = Open(true);
  ASSERT_TRUE(conn->ExecScript("CREATE TABLE t (x)").ok());
  sqlite3_stmt* first = nullptr;
  {
    auto stmt = conn->Prepare("SELECT ?1");
    ASSERT_TRUE(stmt.ok());
    first = stmt->raw();
    stmt->Bind(1, int64_t{7});
    ASSERT_TRUE(*stmt->Step());
    EXPECT_EQ(stmt->Int(0), 7);
    // A nested use of the same text gets its own statement.
    auto nested = conn->Prepare("SELECT ?1");
    ASSERT_TRUE(nested.ok());
    EXPECT_NE(nested->raw(), first);
  }
  auto again = conn->Prepare("SELECT ?1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->raw(), first);  // from the cache
  ASSERT_TRUE(*again->Step());
  EXPECT_TRUE(again->IsNull(0));  // the old binding was cleared
}

TEST_F(ConnectionTest, ErrorsBecomeStatuses) {
  auto conn = Open(true);
  auto bad = conn->Prepare("SELEKT 1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kInternal);
  EXPECT_NE(bad.status().message().find("SELEKT"), std::string::npos);
  ASSERT_TRUE(conn->ExecScript("CREATE TABLE u (k TEXT PRIMARY KEY)").ok());
  ASSERT_TRUE(conn->Exec("INSERT INTO u VALUES ('a')").ok());
  EXPECT_EQ(conn->Exec("INSERT INTO u VALUES ('a')").code(), ErrorCode::kConflict);
  auto stmt = conn->Prepare("SELECT ?1");
  stmt->Bind(5, int64_t{1});  // out of range: reported by Step
  EXPECT_FALSE(stmt->Step().ok());
}

}  // namespace
}  // namespace redrive::store::sqlite
