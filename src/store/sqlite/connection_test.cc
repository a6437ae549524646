#include "store/sqlite/connection.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <thread>
#include <vector>

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
  EXPECT_EQ(Pragma(*conn, "query_only"), "0");
}

TEST(BusyRetryDelayTest, StartsShortDoublesToAMillisecondAndStopsAtTheTimeout) {
  using std::chrono::microseconds;
  const microseconds timeout(1234000);
  std::vector<long long> delays;
  for (int attempt = 0; attempt < 9; ++attempt) {
    delays.push_back(BusyRetryDelay(attempt, microseconds(0), timeout)->count());
  }
  EXPECT_EQ(delays, (std::vector<long long>{25, 50, 100, 200, 400, 800, 1000, 1000, 1000}));
  // Never past the timeout, and none once it is reached.
  EXPECT_EQ(BusyRetryDelay(20, microseconds(1233900), timeout), microseconds(100));
  EXPECT_EQ(BusyRetryDelay(20, timeout, timeout), std::nullopt);
  EXPECT_EQ(BusyRetryDelay(0, microseconds(0), microseconds(0)), std::nullopt);
}

TEST_F(ConnectionTest, AWriteWaitsForALockHeldElsewhereUpToTheTimeout) {
  auto holder = Open(true);
  ASSERT_NE(holder, nullptr);
  ASSERT_TRUE(holder->ExecScript("CREATE TABLE t (x)").ok());
  ConnectionOptions options;
  options.writer = true;
  options.busy_timeout = std::chrono::milliseconds(20);
  auto waiter = Connection::Open(dir_.File("c.db"), options);
  ASSERT_TRUE(waiter.ok()) << waiter.status().ToString();
  ASSERT_TRUE(holder->Exec("BEGIN IMMEDIATE").ok());
  // Held past the timeout: the waiter gives up, after waiting it out.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE((*waiter)->Exec("BEGIN IMMEDIATE").ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  // Released while a patient one waits: it gets the lock.
  options.busy_timeout = std::chrono::milliseconds(60000);
  auto patient = Connection::Open(dir_.File("c.db"), options);
  ASSERT_TRUE(patient.ok()) << patient.status().ToString();
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    EXPECT_TRUE(holder->Exec("COMMIT").ok());
  });
  EXPECT_TRUE((*patient)->Exec("BEGIN IMMEDIATE").ok());
  release.join();
  EXPECT_TRUE((*patient)->Exec("COMMIT").ok());
}

TEST_F(ConnectionTest, ReaderIsQueryOnly) {
  auto writer = Open(true);
  auto reader = Open(false);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(Pragma(*reader, "journal_mode"), "wal");
  EXPECT_EQ(Pragma(*reader, "query_only"), "1");
  EXPECT_FALSE(reader->ExecScript("CREATE TABLE t (x)").ok());
}

TEST_F(ConnectionTest, TheWriterReadsThroughItsCacheAndReadersThroughTheMap) {
  auto writer = Open(true);
  auto reader = Open(false);
  ASSERT_NE(writer, nullptr);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(Pragma(*writer, "mmap_size"), "0");
  EXPECT_EQ(Pragma(*writer, "cache_size"), "-65536");
  EXPECT_EQ(Pragma(*reader, "mmap_size"), "268435456");
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

// compact_id and id_text, on every connection, the reader's too: a UUID in
// canonical text is stored as its 16 bytes and read back as the same text;
// any other value (an id of another form, an upper-case UUID, NULL, a blob
// of another length) passes through both unchanged.
TEST_F(ConnectionTest, JobIdsAreStoredCompactlyAndReadBackAsText) {
  auto writer = Open(true);
  ASSERT_NE(writer, nullptr);
  auto reader = Open(false);
  ASSERT_NE(reader, nullptr);
  for (Connection* conn : {writer.get(), reader.get()}) {
    auto one = [&](const std::string& sql) {
      auto stmt = conn->Prepare(sql);
      EXPECT_TRUE(stmt.ok()) << sql << ": " << stmt.status().ToString();
      if (!stmt.ok() || !*stmt->Step()) return std::string("<error>");
      return stmt->IsNull(0) ? std::string("NULL") : stmt->String(0);
    };
    const std::string uuid = "01a243de-882f-708e-a89a-e436b9173288";
    EXPECT_EQ(
        one("SELECT typeof(compact_id('" + uuid + "')) || length(compact_id('" + uuid + "'))"),
        "blob16");
    EXPECT_EQ(one("SELECT hex(compact_id('" + uuid + "'))"), "01A243DE882F708EA89AE436B9173288");
    EXPECT_EQ(one("SELECT id_text(compact_id('" + uuid + "'))"), uuid);
    EXPECT_EQ(one("SELECT id_text(x'01a243de882f708ea89ae436b9173288')"), uuid);
    for (const std::string& other :
         {std::string("j-1"), std::string("01A243DE-882F-708E-A89A-E436B9173288"),
          std::string("01a243de882f708ea89ae436b9173288"), std::string("")}) {
      SCOPED_TRACE(other);
      EXPECT_EQ(
          one("SELECT typeof(compact_id('" + other + "')) || ':' || compact_id('" + other + "')"),
          "text:" + other);
      EXPECT_EQ(one("SELECT id_text('" + other + "')"), other);
    }
    EXPECT_EQ(one("SELECT compact_id(NULL)"), "NULL");
    EXPECT_EQ(one("SELECT id_text(NULL)"), "NULL");
    EXPECT_EQ(one("SELECT typeof(id_text(x'0102')) || hex(id_text(x'0102'))"), "blob0102");
  }
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
