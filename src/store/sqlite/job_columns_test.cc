// The column table (job_columns.h) against the schema and the SQL it drives:
// every column of the schema has a table line, and changing any one field
// of a job is seen as a change of exactly that column, written to exactly
// the column of that name, and read back (or refused, for a fixed column).
#include "store/sqlite/job_columns.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "store/sqlite/connection.h"
#include "store/sqlite/sqlite_schema.h"
#include "store/sqlite/sqlite_write_tx.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store::sqlite {
namespace {

using std::chrono::milliseconds;
using ::testing::ElementsAreArray;

Instant T(int seconds) {
  return InstantFromMicros(1'800'000'000'000'000 + int64_t{seconds} * 1'000'000);
}

// A job with every field set to a value of its own.
Job FullJob(const std::string& id) {
  Job j;
  j.id = id;
  j.queue_name = "emails";
  j.status = JobStatus::kProcessing;
  j.payload = R"({"to":"a@example.com"})";
  j.result = R"("partial")";
  j.priority = 5;
  j.retry_count = 1;
  j.max_retries = 4;
  j.timeout_seconds = 60;
  j.backoff = {milliseconds(2000), milliseconds(90000), milliseconds(300)};
  j.last_error = "smtp 550";
  j.error_fingerprint = "0123456789abcdef";
  j.dead_reason = DeadReason::kLeaseExpired;
  j.tags = {{"tenant", "acme"}};
  j.idempotency_key = "key-" + id;
  j.completion_webhook = "https://app.example.com/done/" + id;
  j.created_at = T(1);
  j.updated_at = T(2);
  j.scheduled_at = T(3);
  j.started_at = T(4);
  j.completed_at = T(5);
  j.expires_at = T(100);
  j.deadlettered_at = T(6);
  j.assigned_worker_id = "w1";
  j.lease_id = "lease-1";
  j.lease_expires_at = T(7);
  j.attempts = 2;
  j.lease_expiries = 1;
  return j;
}

// One change of one field, by the name of its column. Written out here, not
// taken from the table, so a table line that pairs a name with the wrong
// field fails below.
std::map<std::string, std::function<void(Job&)>> ChangeByColumn() {
  return {
      {"id", [](Job& j) { j.id += "-other"; }},
      {"queue_name", [](Job& j) { j.queue_name = "sms"; }},
      {"status", [](Job& j) { j.status = JobStatus::kDeadletter; }},
      {"payload", [](Job& j) { j.payload = "[1,2]"; }},
      {"result", [](Job& j) { j.result = R"({"sent":true})"; }},
      {"priority", [](Job& j) { j.priority = -3; }},
      {"retry_count", [](Job& j) { j.retry_count = 2; }},
      {"max_retries", [](Job& j) { j.max_retries = 9; }},
      {"timeout_seconds", [](Job& j) { j.timeout_seconds = 61; }},
      {"backoff_base_ms", [](Job& j) { j.backoff.base = milliseconds(2001); }},
      {"backoff_max_ms", [](Job& j) { j.backoff.max = milliseconds(90001); }},
      {"backoff_jitter_ms", [](Job& j) { j.backoff.jitter = milliseconds(301); }},
      {"last_error", [](Job& j) { j.last_error.reset(); }},
      {"dead_reason", [](Job& j) { j.dead_reason = DeadReason::kExpired; }},
      {"tags", [](Job& j) { j.tags["region"] = "eu"; }},
      {"idempotency_key", [](Job& j) { j.idempotency_key.reset(); }},
      {"completion_webhook", [](Job& j) { j.completion_webhook.reset(); }},
      {"created_at", [](Job& j) { j.created_at = T(11); }},
      {"updated_at", [](Job& j) { j.updated_at = T(12); }},
      {"scheduled_at", [](Job& j) { j.scheduled_at = T(13); }},
      {"started_at", [](Job& j) { j.started_at = T(14); }},
      {"completed_at", [](Job& j) { j.completed_at.reset(); }},
      {"expires_at", [](Job& j) { j.expires_at = T(200); }},
      {"deadlettered_at", [](Job& j) { j.deadlettered_at = T(16); }},
      {"assigned_worker_id", [](Job& j) { j.assigned_worker_id = "w2"; }},
      {"lease_id", [](Job& j) { j.lease_id = "lease-2"; }},
      {"lease_expires_at", [](Job& j) { j.lease_expires_at = T(17); }},
      {"attempts", [](Job& j) { j.attempts = 3; }},
      {"lease_expiries", [](Job& j) { j.lease_expiries = 2; }},
      {"crash_count", [](Job& j) { j.crash_count = 2; }},
      {"crash_limit", [](Job& j) { j.crash_limit = 0; }},
      {"snooze_count", [](Job& j) { j.snooze_count = 1; }},
      {"max_snoozes", [](Job& j) { j.max_snoozes = 7; }},
      {"error_fingerprint", [](Job& j) { j.error_fingerprint = "fedcba9876543210"; }},
  };
}

std::vector<std::string> NamesOf(JobColumnSet columns) {
  std::vector<std::string> names;
  for (int i = 0; i < kJobColumnCount; ++i) {
    if (columns & ColumnBit(i)) names.push_back(kJobColumns[i].name);
  }
  return names;
}

class JobColumnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ConnectionOptions options;
    options.writer = true;
    auto conn = Connection::Open(dir_.File("columns.db"), options);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    conn_ = std::move(*conn);
    ASSERT_TRUE(Migrate(*conn_).ok());
  }

  std::vector<std::string> SchemaColumns(const std::string& table) {
    auto stmt = conn_->Prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    std::vector<std::string> names;
    if (!stmt.ok()) return names;
    stmt->Bind(1, table);
    while (*stmt->Step()) names.push_back(stmt->String(0));
    return names;
  }

  // The stored row of job `id` (jobs and job_payloads), by column name; each
  // value as SQLite's text, nullopt for NULL.
  std::map<std::string, std::optional<std::string>> RawRow(const std::string& id) {
    std::map<std::string, std::optional<std::string>> row;
    for (const char* query : {"SELECT * FROM jobs WHERE id = ?1",
                              "SELECT payload, result FROM job_payloads"
                              " WHERE job_seq = (SELECT seq FROM jobs WHERE id = ?1)"}) {
      auto stmt = conn_->Prepare(query);
      EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
      if (!stmt.ok()) return row;
      stmt->Bind(1, id);
      EXPECT_TRUE(*stmt->Step()) << "no row for " << id;
      for (int c = 0; c < sqlite3_column_count(stmt->raw()); ++c) {
        row[sqlite3_column_name(stmt->raw(), c)] = stmt->OptString(c);
      }
    }
    return row;
  }

  TempDirForTest dir_;
  std::unique_ptr<Connection> conn_;
  std::mutex writer_;
  CommitHealth health_;
};

// The key columns come first: jobs.seq (the rowid) and job_payloads.job_seq.
TEST_F(JobColumnsTest, NameEveryColumnOfTheSchemaInOrder) {
  std::vector<std::string> jobs = SchemaColumns("jobs");
  ASSERT_FALSE(jobs.empty());
  EXPECT_EQ(jobs.front(), "seq");
  jobs.erase(jobs.begin());
  EXPECT_THAT(NamesOf(kJobsTableColumns), ElementsAreArray(jobs));
  std::vector<std::string> payloads = SchemaColumns("job_payloads");
  ASSERT_FALSE(payloads.empty());
  EXPECT_EQ(payloads.front(), "job_seq");
  payloads.erase(payloads.begin());
  EXPECT_THAT(NamesOf(kPayloadsColumns), ElementsAreArray(payloads));
}

TEST_F(JobColumnsTest, TheChangesHereCoverEveryColumn) {
  std::vector<std::string> names;
  for (const auto& [name, change] : ChangeByColumn()) names.push_back(name);
  std::vector<std::string> table = NamesOf(~JobColumnSet{0});
  std::sort(table.begin(), table.end());
  EXPECT_THAT(names, ElementsAreArray(table));
}

TEST_F(JobColumnsTest, EachColumnIsDiffedWrittenAndReadOnItsOwn) {
  // Each field changes alone, which may break the row's CHECK constraints
  // (a lease outside processing): this test is about the column mapping.
  ASSERT_TRUE(conn_->Exec("PRAGMA ignore_check_constraints = ON").ok());
  const auto changes = ChangeByColumn();
  for (int i = 0; i < kJobColumnCount; ++i) {
    const std::string name = kJobColumns[i].name;
    SCOPED_TRACE(name);
    const Job before = FullJob("job-" + name);
    Job after = before;
    changes.at(name)(after);
    EXPECT_EQ(ChangedColumns(before, after), ColumnBit(i));

    auto tx = SqliteWriteTx::Begin(*conn_, std::unique_lock(writer_), health_);
    ASSERT_TRUE(tx.ok()) << tx.status().ToString();
    HistoryEntry created{"h-" + name, before.id, "created", std::nullopt, "{}", before.created_at};
    ASSERT_TRUE((*tx)->InsertJob(before, created).ok());
    ASSERT_EQ(*(*tx)->GetJob(before.id), before);  // the insert writes and reads every column
    const auto stored = RawRow(before.id);

    Change change;
    change.before = before;
    change.after = after;
    Status st = (*tx)->ApplyChange(change);
    if (kJobColumns[i].kind == JobColumnKind::kFixed) {
      EXPECT_EQ(st.code(), ErrorCode::kInternal) << st.ToString();
      EXPECT_EQ(RawRow(before.id), stored);
    } else {
      ASSERT_TRUE(st.ok()) << st.ToString();
      EXPECT_EQ(*(*tx)->GetJob(before.id), after);
      auto expected = stored;
      expected[name] = RawRow(before.id).at(name);
      EXPECT_NE(expected[name], stored.at(name)) << "the column of that name was not written";
      EXPECT_EQ(RawRow(before.id), expected) << "another column was written";
    }
    ASSERT_TRUE((*tx)->Commit().ok());
  }
}

// History rows are keyed by the job's seq and keep a UUID id as its 16
// bytes (sqlite_schema.cc, version 24); an id that is not a canonical UUID
// stays text. Both read back exactly as written, in the order written.
TEST_F(JobColumnsTest, HistoryIdsAreStoredCompactlyAndReadBackAsWritten) {
  auto tx = SqliteWriteTx::Begin(*conn_, std::unique_lock(writer_), health_);
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  const Job job = FullJob("job-history");
  const std::string uuid = "01a243de-882f-7596-bc9e-152d007ef52f";
  HistoryEntry created{uuid, job.id, "created", std::nullopt, "{}", job.created_at};
  ASSERT_TRUE((*tx)->InsertJob(job, created).ok());
  Change change;
  change.before = job;
  change.after = job;
  change.after.attempts += 1;
  change.history =
      HistoryEntry{"not-a-uuid", job.id, "heartbeat", "w1", R"({"n":1})", job.created_at};
  ASSERT_TRUE((*tx)->ApplyChange(change).ok());

  auto stored = conn_->Prepare(
      "SELECT group_concat(typeof(id) || ':' || length(CAST(id AS BLOB)), ',') FROM"
      " (SELECT h.id FROM job_history h JOIN jobs j ON j.seq = h.job_seq WHERE j.id = ?1"
      "  ORDER BY h.rowid)");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  stored->Bind(1, job.id);
  ASSERT_TRUE(*stored->Step());
  EXPECT_EQ(stored->String(0), "blob:16,text:10");

  auto history = (*tx)->GetHistory(job.id);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0], created);
  EXPECT_EQ((*history)[1], *change.history);
  ASSERT_TRUE((*tx)->Commit().ok());
}

}  // namespace
}  // namespace redrive::store::sqlite
