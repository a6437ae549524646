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
#include <set>
#include <string>
#include <vector>

#include "store/sqlite/connection.h"
#include "store/sqlite/history_codec.h"
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
      {"queue_id", [](Job& j) { j.queue_name = "sms"; }},
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

  // The stored row of job `id` (jobs, job_payloads and job_leases), by
  // column name; each value as SQLite's text, nullopt for NULL (and for the
  // lease's columns when it has none).
  std::map<std::string, std::optional<std::string>> RawRow(const std::string& id) {
    std::map<std::string, std::optional<std::string>> row;
    for (const char* query :
         {"SELECT * FROM jobs WHERE id = ?1",
          "SELECT payload, result FROM job_payloads"
          " WHERE job_seq = (SELECT seq FROM jobs WHERE id = ?1)",
          "SELECT l.assigned_worker_id, l.lease_id, l.lease_expires_at"
          " FROM jobs j LEFT JOIN job_leases l ON l.job_seq = j.seq WHERE j.id = ?1"}) {
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

  int64_t LeaseRows() {
    auto stmt = conn_->Prepare("SELECT count(*) FROM job_leases");
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    if (!stmt.ok() || !*stmt->Step()) return -1;
    return stmt->Int64(0);
  }

  std::unique_ptr<SqliteWriteTx> Begin() {
    auto tx = SqliteWriteTx::Begin(*conn_, std::unique_lock(writer_), health_);
    EXPECT_TRUE(tx.ok()) << tx.status().ToString();
    return tx.ok() ? std::move(*tx) : nullptr;
  }

  TempDirForTest dir_;
  std::unique_ptr<Connection> conn_;
  std::mutex writer_;
  CommitHealth health_;
};

// `job` as it is when it holds no lease, in `status`.
Job WithoutLease(Job job, JobStatus status) {
  job.status = status;
  job.assigned_worker_id.reset();
  job.lease_id.reset();
  job.lease_expires_at.reset();
  return job;
}

// The key columns come first: jobs.seq (the rowid) and job_payloads.job_seq.
TEST_F(JobColumnsTest, NameEveryColumnOfTheSchemaInOrder) {
  std::vector<std::string> jobs = SchemaColumns("jobs");
  ASSERT_FALSE(jobs.empty());
  EXPECT_EQ(jobs.front(), "seq");
  jobs.erase(jobs.begin());
  EXPECT_THAT(NamesOf(kJobsTableColumns), ElementsAreArray(jobs));
  for (const auto& [table, columns] :
       {std::pair{"job_payloads", kPayloadsColumns}, std::pair{"job_leases", kLeaseColumns}}) {
    SCOPED_TRACE(table);
    std::vector<std::string> names = SchemaColumns(table);
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names.front(), "job_seq");
    names.erase(names.begin());
    EXPECT_THAT(NamesOf(columns), ElementsAreArray(names));
  }
}

TEST_F(JobColumnsTest, TheChangesHereCoverEveryColumn) {
  std::vector<std::string> names;
  for (const auto& [name, change] : ChangeByColumn()) names.push_back(name);
  std::vector<std::string> table = NamesOf(~JobColumnSet{0});
  std::sort(table.begin(), table.end());
  EXPECT_THAT(names, ElementsAreArray(table));
}

TEST_F(JobColumnsTest, EachColumnIsDiffedWrittenAndReadOnItsOwn) {
  const auto changes = ChangeByColumn();
  for (int i = 0; i < kJobColumnCount; ++i) {
    const std::string name = kJobColumns[i].name;
    SCOPED_TRACE(name);
    // A processing job holds a lease, and no other: the status changes
    // alone between two statuses without one.
    const Job before = name == "status"
                           ? WithoutLease(FullJob("job-" + name), JobStatus::kCompleted)
                           : FullJob("job-" + name);
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

// A job's lease is a row of job_leases from its claim to its completion,
// and the guard of a write compares the lease stored there.
TEST_F(JobColumnsTest, TheLeaseIsARowOfItsOwnWhileTheJobIsProcessing) {
  const Job processing = FullJob("job-1");
  const Job pending = WithoutLease(processing, JobStatus::kPending);
  auto tx = Begin();
  ASSERT_NE(tx, nullptr);
  ASSERT_TRUE(tx->InsertJob(pending, {"h-1", pending.id, "created", {}, "{}", T(1)}).ok());
  EXPECT_EQ(LeaseRows(), 0);

  Change claim{.before = pending, .after = processing};
  ASSERT_TRUE(tx->ApplyChange(claim).ok());
  EXPECT_EQ(LeaseRows(), 1);
  EXPECT_EQ(*tx->GetJob(pending.id), processing);

  // A write by a holder of another lease is refused, and changes nothing.
  Job stale = processing;
  stale.lease_id = "lease-0";
  Job stale_after = WithoutLease(stale, JobStatus::kCompleted);
  Status refused = tx->ApplyChange({.before = stale, .after = stale_after});
  EXPECT_EQ(refused.code(), ErrorCode::kConflict) << refused.ToString();
  EXPECT_EQ(*tx->GetJob(pending.id), processing);

  Job extended = processing;
  extended.lease_expires_at = T(70);
  ASSERT_TRUE(tx->ApplyChange({.before = processing, .after = extended}).ok());
  EXPECT_EQ(*tx->GetJob(pending.id), extended);

  const Job completed = WithoutLease(extended, JobStatus::kCompleted);
  ASSERT_TRUE(tx->ApplyChange({.before = extended, .after = completed}).ok());
  EXPECT_EQ(LeaseRows(), 0);
  EXPECT_EQ(*tx->GetJob(pending.id), completed);
  ASSERT_TRUE(tx->Commit().ok());

  // The lease goes with its job.
  tx.reset();  // releases the writer
  tx = Begin();
  ASSERT_NE(tx, nullptr);
  const Job other = FullJob("job-2");
  ASSERT_TRUE(tx->InsertJob(other, {"h-2", other.id, "created", {}, "{}", T(1)}).ok());
  EXPECT_EQ(LeaseRows(), 1);
  ASSERT_TRUE(conn_->Exec("DELETE FROM jobs WHERE id = 'job-2'").ok());
  EXPECT_EQ(LeaseRows(), 0);
}

// A finished job's updated_at is its completed_at: the row holds NULL for
// it then and reads it back from completed_at; any other updated_at is
// stored, including when a later change moves one away from the other.
TEST_F(JobColumnsTest, AFinishedJobsUpdatedAtIsReadFromItsCompletedAt) {
  Job finished = WithoutLease(FullJob("job-1"), JobStatus::kCompleted);
  finished.updated_at = *finished.completed_at;
  Job busy = FullJob("job-2");
  busy.completed_at.reset();
  auto tx = Begin();
  ASSERT_NE(tx, nullptr);
  for (const Job* job : {&finished, &busy}) {
    ASSERT_TRUE(tx->InsertJob(*job, {"h-" + job->id, job->id, "created", {}, "{}", T(1)}).ok());
    EXPECT_EQ(*tx->GetJob(job->id), *job);
  }
  EXPECT_EQ(RawRow("job-1").at("updated_at"), std::nullopt);
  EXPECT_EQ(RawRow("job-2").at("updated_at"), std::to_string(ToMicros(busy.updated_at)));

  // Redriven: no longer finished, so its updated_at is stored again.
  Job redriven = WithoutLease(finished, JobStatus::kPending);
  redriven.completed_at.reset();
  redriven.updated_at = T(30);
  ASSERT_TRUE(tx->ApplyChange({.before = finished, .after = redriven}).ok());
  EXPECT_EQ(*tx->GetJob("job-1"), redriven);
  EXPECT_EQ(RawRow("job-1").at("updated_at"), std::to_string(ToMicros(T(30))));
  // Finished again, at the instant of the change.
  Job again = redriven;
  again.status = JobStatus::kCompleted;
  again.updated_at = T(40);
  again.completed_at = T(40);
  ASSERT_TRUE(tx->ApplyChange({.before = redriven, .after = again}).ok());
  EXPECT_EQ(*tx->GetJob("job-1"), again);
  EXPECT_EQ(RawRow("job-1").at("updated_at"), std::nullopt);
}

// A lease outside processing, or part of one, is a bug in core: refused
// before anything is written.
TEST_F(JobColumnsTest, ALeaseOutsideProcessingOrPartOfOneIsRefused) {
  const Job processing = FullJob("job-1");
  auto tx = Begin();
  ASSERT_NE(tx, nullptr);
  Job dead_with_lease = processing;
  dead_with_lease.status = JobStatus::kDeadletter;
  Job without_expiry = processing;
  without_expiry.lease_expires_at.reset();
  const Job pending_with_worker = [&] {
    Job j = WithoutLease(processing, JobStatus::kPending);
    j.assigned_worker_id = "w1";
    return j;
  }();
  for (const Job& bad : {dead_with_lease, without_expiry, pending_with_worker}) {
    SCOPED_TRACE(JobStatusName(bad.status));
    EXPECT_EQ(tx->InsertJob(bad, {"h-1", bad.id, "created", {}, "{}", T(1)}).status().code(),
              ErrorCode::kInternal);
  }
  ASSERT_TRUE(tx->InsertJob(processing, {"h-1", processing.id, "created", {}, "{}", T(1)}).ok());
  for (const Job& bad : {dead_with_lease, without_expiry, pending_with_worker}) {
    SCOPED_TRACE(JobStatusName(bad.status));
    EXPECT_EQ(tx->ApplyChange({.before = processing, .after = bad}).code(), ErrorCode::kInternal);
  }
  EXPECT_EQ(*tx->GetJob(processing.id), processing);
  EXPECT_EQ(LeaseRows(), 1);
}

// Writes a change of `job` (one more attempt) with `entry` as its history,
// and leaves `job` as written.
Status AppendHistory(SqliteWriteTx& tx, Job& job, const HistoryEntry& entry) {
  Change change;
  change.before = job;
  change.after = job;
  change.after.attempts += 1;
  change.history = entry;
  REDRIVE_RETURN_IF_ERROR(tx.ApplyChange(change));
  job = change.after;
  return Status::Ok();
}

// A job's history is one row per segment (history_codec.h): the entries a
// job's writes append read back as written, in order, each with the id
// derived from the job's seq and its place, not the one core made.
TEST_F(JobColumnsTest, HistoryEntriesArePackedIntoOneRowAndReadBackAsWritten) {
  auto tx = SqliteWriteTx::Begin(*conn_, std::unique_lock(writer_), health_);
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  const Job job = FullJob("job-history");
  HistoryEntry created{
      "01a243de-882f-7596-bc9e-152d007ef52f", job.id,         "created", std::nullopt,
      R"({"queue_name":"emails"})",           job.created_at, "n1"};
  ASSERT_TRUE((*tx)->InsertJob(job, created).ok());
  std::vector<HistoryEntry> expected = {created};
  Job before = job;
  for (int i = 0; i < 3; ++i) {
    expected.push_back(HistoryEntry{"not-a-uuid", job.id, "heartbeat", "w1", R"({"n":1})",
                                    job.created_at + std::chrono::seconds(i), "n1"});
    ASSERT_TRUE(AppendHistory(**tx, before, expected.back()).ok());
  }

  auto stored = conn_->Prepare(
      "SELECT count(*), max(h.seg), sum(length(h.entries)), min(j.seq) FROM job_history h"
      " JOIN jobs j ON j.seq = h.job_seq WHERE j.id = ?1");
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  stored->Bind(1, job.id);
  ASSERT_TRUE(*stored->Step());
  EXPECT_EQ(stored->Int(0), 1);
  EXPECT_EQ(stored->Int(1), 0);
  EXPECT_LT(stored->Int(2), 100);
  const int64_t seq = stored->Int64(3);

  for (size_t i = 0; i < expected.size(); ++i) {
    expected[i].id = history::DerivedEntryId(seq, i, expected[i].created_at);
  }
  auto history = (*tx)->GetHistory(job.id);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  EXPECT_EQ(*history, expected);
  ASSERT_TRUE((*tx)->Commit().ok());
}

// An entry that does not fit the last segment starts the next: a job with
// many large entries has many rows, none much over kSegmentBytes, and
// its history still reads back whole, in order.
TEST_F(JobColumnsTest, ALongHistoryGoesOnInNewSegments) {
  auto tx = SqliteWriteTx::Begin(*conn_, std::unique_lock(writer_), health_);
  ASSERT_TRUE(tx.ok()) << tx.status().ToString();
  const Job job = FullJob("job-long-history");
  HistoryEntry created{"c", job.id, "created", std::nullopt, "{}", job.created_at, std::nullopt};
  ASSERT_TRUE((*tx)->InsertJob(job, created).ok());
  std::vector<std::string> errors;
  Job before = job;
  for (int i = 0; i < 12; ++i) {
    errors.push_back(std::string(300 + 100 * i, static_cast<char>('a' + i)));
    ASSERT_TRUE(AppendHistory(**tx, before,
                              HistoryEntry{"r", job.id, "retry_scheduled", "w1",
                                           R"({"error":")" + errors.back() + R"("})",
                                           job.created_at + std::chrono::seconds(1)})
                    .ok());
  }
  auto stored = conn_->Prepare(
      "SELECT count(*), max(length(entries)) FROM job_history WHERE job_seq ="
      " (SELECT seq FROM jobs WHERE id = ?1)");
  ASSERT_TRUE(stored.ok());
  stored->Bind(1, job.id);
  ASSERT_TRUE(*stored->Step());
  EXPECT_GT(stored->Int(0), 6);
  EXPECT_LT(stored->Int(1), static_cast<int>(history::kSegmentBytes) + 1300);

  auto history = (*tx)->GetHistory(job.id);
  ASSERT_TRUE(history.ok()) << history.status().ToString();
  ASSERT_EQ(history->size(), 13u);
  std::set<std::string> ids;
  for (size_t i = 1; i < history->size(); ++i) {
    EXPECT_EQ((*history)[i].details_json, R"({"error":")" + errors[i - 1] + R"("})");
  }
  for (const HistoryEntry& h : *history) ids.insert(h.id);
  EXPECT_EQ(ids.size(), 13u);
  ASSERT_TRUE((*tx)->Commit().ok());
}

}  // namespace
}  // namespace redrive::store::sqlite
