// The fixture of the SQLite schema tests (sqlite_schema_test.cc, and
// compact_schema_test.cc for the compact job storage's migrations): a
// writer connection on a new file, and helpers to migrate it to a given
// version and read it back.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite/connection.h"
#include "store/sqlite/history_codec.h"
#include "store/sqlite/job_sql.h"
#include "store/sqlite/sqlite_schema.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store::sqlite {

// Not in an anonymous namespace: both test files use this one class, as
// GoogleTest requires of a test suite's fixture.
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
  // The first column of the first row of `query`.
  std::string One(const std::string& query) {
    auto stmt = conn_->Prepare(query);
    EXPECT_TRUE(stmt.ok()) << query << ": " << stmt.status().ToString();
    if (!stmt.ok()) return "<error>";
    EXPECT_TRUE(*stmt->Step()) << query;
    return stmt->String(0);
  }
  // Applies the migrations before the one named `name` (INTERNAL if none
  // has that name), as a store of that older version would be.
  Status MigrateToBefore(std::string_view name) {
    const std::span<const Migration> all = Migrations();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].name == name) return Migrate(*conn_, all.first(i));
    }
    return Status::Internal("no migration named " + std::string(name));
  }
  // Applies the migrations up to and including the one named `name`.
  Status MigrateThrough(std::string_view name) {
    const std::span<const Migration> all = Migrations();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].name == name) return Migrate(*conn_, all.first(i + 1));
    }
    return Status::Internal("no migration named " + std::string(name));
  }
  // The names of the indexes of `table`, sorted, comma-separated.
  std::string IndexesOf(const std::string& table) {
    return One(
        "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_master"
        " WHERE type = 'index' AND tbl_name = '" +
        table + "' ORDER BY name)");
  }
  // A pending job of queue q created at 7 µs, in the jobs table of any
  // version from 8 on.
  Status InsertPendingJob(const std::string& id) {
    return conn_->ExecScript(
        "INSERT INTO jobs (id, queue_name, status, priority, retry_count, max_retries,"
        " timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, created_at,"
        " updated_at, scheduled_at) VALUES ('" +
        id + "', 'q', 'pending', 0, 0, 3, 30, 1, 1, 1, 7, 7, 7);");
  }
  // A job's history as "id:event_type", decoded from its segments in their
  // order, unsorted (history_codec.h).
  std::string HistoryOf(const std::string& job_id) {
    auto stmt = conn_->Prepare(sql::kGetHistory);
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    if (!stmt.ok()) return "<error>";
    stmt->Bind(1, job_id);
    std::vector<HistoryEntry> entries;
    size_t index = 0;
    while (*stmt->Step()) {
      Status st = history::DecodeSegment(stmt->Blob(2), stmt->Int64(0), job_id, index, entries);
      EXPECT_TRUE(st.ok()) << st.ToString();
    }
    std::string out;
    for (const HistoryEntry& h : entries) {
      out += (out.empty() ? "" : ",") + h.id + ":" + h.event_type;
    }
    return out;
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

}  // namespace redrive::store::sqlite
