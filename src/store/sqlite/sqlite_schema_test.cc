#include "store/sqlite/sqlite_schema.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite/history_codec.h"
#include "store/sqlite/job_sql.h"
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

TEST_F(SchemaTest, FreshDatabaseGetsEveryMigrationOnce) {
  EXPECT_EQ(*SchemaVersion(*conn_), 0);
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(*SchemaVersion(*conn_), Migrations().back().version);
  for (const char* table : {"jobs", "job_payloads", "job_tags", "job_history", "queues", "workers",
                            "webhooks", "webhook_deliveries", "duty_leases"}) {
    EXPECT_TRUE(TableExists(table)) << table;
  }
  EXPECT_EQ(MigrationRows(), static_cast<int64_t>(Migrations().size()));
  ASSERT_TRUE(Migrate(*conn_).ok());  // a no-op the second time
  EXPECT_EQ(MigrationRows(), static_cast<int64_t>(Migrations().size()));
  EXPECT_FALSE(conn_->InTransaction());
}

// A file written before duty leases and delivery reservations (version 2)
// upgrades in place: its deliveries keep every field, unreserved.
TEST_F(SchemaTest, AFileFromBeforeDutyLeasesUpgradesKeepingItsDeliveries) {
  ASSERT_TRUE(Migrate(*conn_, Migrations().first(2)).ok());
  ASSERT_TRUE(
      conn_
          ->ExecScript("INSERT INTO webhooks VALUES ('w', 'n', 'http://x/', 'job.failed', 's', 1,"
                       " 'json', 0, NULL, 1, 1, NULL);"
                       "INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, body,"
                       " status, attempts, next_attempt_at, created_at)"
                       " VALUES ('d', 'w', 'e', 'job.failed', '{}', 'pending', 2, 7, 1);")
          .ok());
  EXPECT_FALSE(TableExists("duty_leases"));
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(*SchemaVersion(*conn_), Migrations().back().version);
  EXPECT_TRUE(TableExists("duty_leases"));
  auto stmt = conn_->Prepare(
      "SELECT attempts, next_attempt_at, reservation IS NULL FROM webhook_deliveries");
  ASSERT_TRUE(stmt.ok());
  ASSERT_TRUE(*stmt->Step());
  EXPECT_EQ(stmt->Int(0), 2);
  EXPECT_EQ(stmt->Int64(1), 7);
  EXPECT_EQ(stmt->Int(2), 1);
}

TEST_F(SchemaTest, AVersionOneFileUpgradesToTheLatest) {
  ASSERT_TRUE(Migrate(*conn_, Migrations().first(1)).ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(*SchemaVersion(*conn_), Migrations().back().version);
  EXPECT_TRUE(TableExists("webhook_deliveries"));
  EXPECT_TRUE(TableExists("duty_leases"));
}

// The quarantine migration widens the CHECK of jobs.status in place: a file
// from before it keeps its jobs (payloads, history) and their new counters
// take the defaults; `quarantined` is then accepted, on this connection and
// on a new one, and a status that does not exist is still refused.
TEST_F(SchemaTest, AFileFromBeforeQuarantineUpgradesKeepingItsJobs) {
  ASSERT_TRUE(MigrateToBefore("crash counts, quarantine and snoozes").ok());
  const char* kInsertJob =
      "INSERT INTO jobs (id, queue_name, status, priority, retry_count, max_retries,"
      " timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, created_at,"
      " updated_at, scheduled_at, completed_at) VALUES ('%s', 'q', '%s', 0, 2, 3, 30, 1, 1, 1,"
      " 1, 1, 1, 1);";
  auto insert = [&](const char* id, const char* status) {
    char sql[512];
    std::snprintf(sql, sizeof sql, kInsertJob, id, status);
    return conn_->ExecScript(sql);
  };
  ASSERT_TRUE(insert("old", "completed").ok());
  ASSERT_TRUE(conn_->ExecScript("INSERT INTO job_payloads VALUES ('old', '{}', NULL);").ok());
  EXPECT_FALSE(insert("early", "quarantined").ok());
  ASSERT_TRUE(MigrateThrough("crash counts, quarantine and snoozes").ok());
  auto stmt = conn_->Prepare(
      "SELECT retry_count, crash_count, crash_limit, snooze_count, max_snoozes,"
      " (SELECT count(*) FROM job_payloads) FROM jobs WHERE id = 'old'");
  ASSERT_TRUE(stmt.ok()) << stmt.status().ToString();
  ASSERT_TRUE(*stmt->Step());
  EXPECT_EQ(stmt->Int(0), 2);
  EXPECT_EQ(stmt->Int(1), 0);
  EXPECT_EQ(stmt->Int(2), 3);
  EXPECT_EQ(stmt->Int(3), 0);
  EXPECT_EQ(stmt->Int(4), 25);
  EXPECT_EQ(stmt->Int(5), 1);
  EXPECT_TRUE(insert("q1", "quarantined").ok());
  EXPECT_FALSE(insert("bad", "quarantine").ok());
  ConnectionOptions options;
  options.writer = true;
  auto other = Connection::Open(dir_.File("s.db"), options);
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE((*other)->Exec("UPDATE jobs SET status = 'quarantined' WHERE id = 'old'").ok());
  EXPECT_FALSE((*other)->Exec("UPDATE jobs SET status = 'bogus' WHERE id = 'old'").ok());
  auto check = conn_->Prepare("PRAGMA integrity_check");
  ASSERT_TRUE(*check->Step());
  EXPECT_EQ(check->String(0), "ok");
}

// The chat-formats migration widens the CHECK of webhooks.format in place:
// a webhook from before keeps its row, discord and teams are accepted after,
// and a format that does not exist is still refused.
TEST_F(SchemaTest, AFileFromBeforeTheChatFormatsUpgradesKeepingItsWebhooks) {
  ASSERT_TRUE(MigrateToBefore("webhook formats discord and teams").ok());
  auto insert = [&](const char* id, const char* format) {
    char sql[512];
    std::snprintf(sql, sizeof sql,
                  "INSERT INTO webhooks (id, name, url, events, secret, enabled, format,"
                  " created_at, updated_at) VALUES ('%s', 'n', 'http://x/', 'job.failed', 's',"
                  " 1, '%s', 1, 1);",
                  id, format);
    return conn_->ExecScript(sql);
  };
  ASSERT_TRUE(insert("old", "slack").ok());
  EXPECT_FALSE(insert("early", "discord").ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_TRUE(insert("d", "discord").ok());
  EXPECT_TRUE(insert("t", "teams").ok());
  EXPECT_FALSE(insert("bad", "irc").ok());
  auto stmt = conn_->Prepare("SELECT format FROM webhooks WHERE id = 'old'");
  ASSERT_TRUE(*stmt->Step());
  EXPECT_EQ(stmt->String(0), "slack");
  auto check = conn_->Prepare("PRAGMA integrity_check");
  ASSERT_TRUE(*check->Step());
  EXPECT_EQ(check->String(0), "ok");
}

// The workflows migration widens the CHECK of jobs.status again, in place:
// `blocked` is refused before it and accepted after it, on this connection
// and on a new one; the dependency tables exist.
TEST_F(SchemaTest, AFileFromBeforeWorkflowsAcceptsBlockedJobsAfterIt) {
  ASSERT_TRUE(MigrateToBefore("workflows and job dependencies").ok());
  auto insert = [&](const char* id, const char* status) {
    return conn_->ExecScript(
        std::string("INSERT INTO jobs (id, queue_name, status, priority, retry_count,"
                    " max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms,"
                    " backoff_jitter_ms, created_at, updated_at, scheduled_at) VALUES ('") +
        id + "', 'q', '" + status + "', 0, 0, 3, 30, 1, 1, 1, 1, 1, 1);");
  };
  EXPECT_FALSE(insert("early", "blocked").ok());
  ASSERT_TRUE(MigrateThrough("workflows and job dependencies").ok());
  EXPECT_TRUE(insert("b1", "blocked").ok());
  EXPECT_TRUE(insert("q1", "quarantined").ok());
  EXPECT_FALSE(insert("bad", "block").ok());
  ConnectionOptions options;
  options.writer = true;
  auto other = Connection::Open(dir_.File("s.db"), options);
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE((*other)->Exec("UPDATE jobs SET status = 'blocked' WHERE id = 'q1'").ok());
  EXPECT_TRUE((*other)
                  ->Exec("INSERT INTO job_dependencies (job_id, depends_on_job_id, mode)"
                         " VALUES ('b1', 'q1', 'all')")
                  .ok());
  EXPECT_FALSE((*other)
                   ->Exec("INSERT INTO job_dependencies (job_id, depends_on_job_id, mode)"
                          " VALUES ('b1', 'b1', 'all')")
                   .ok());
  auto check = conn_->Prepare("PRAGMA integrity_check");
  ASSERT_TRUE(*check->Step());
  EXPECT_EQ(check->String(0), "ok");
}

// Edges stored before dependencies were marked met: those on a completed job
// are met once migrated, the others not.
TEST_F(SchemaTest, AFileFromBeforeMetDependenciesHasItsCompletedEdgesMet) {
  ASSERT_TRUE(MigrateToBefore("met dependencies").ok());
  auto insert = [&](const char* id, const char* status) {
    return conn_->ExecScript(
        std::string("INSERT INTO jobs (id, queue_name, status, priority, retry_count,"
                    " max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms,"
                    " backoff_jitter_ms, created_at, updated_at, scheduled_at, completed_at)"
                    " VALUES ('") +
        id + "', 'q', '" + status + "', 0, 0, 3, 30, 1, 1, 1, 1, 1, 1, " +
        (std::string_view(status) == "completed" ? "2" : "NULL") + ");");
  };
  ASSERT_TRUE(insert("done", "completed").ok());
  ASSERT_TRUE(insert("running", "pending").ok());
  ASSERT_TRUE(insert("waiter", "blocked").ok());
  ASSERT_TRUE(conn_
                  ->ExecScript("INSERT INTO job_dependencies (job_id, depends_on_job_id, mode)"
                               " VALUES ('waiter', 'done', 'all'), ('waiter', 'running', 'all');")
                  .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  auto met = conn_->Prepare(
      "SELECT depends_on_job_id, met FROM job_dependencies ORDER BY depends_on_job_id");
  ASSERT_TRUE(met.ok());
  ASSERT_TRUE(*met->Step());
  EXPECT_EQ(met->String(0), "done");
  EXPECT_EQ(met->Int(1), 1);
  ASSERT_TRUE(*met->Step());
  EXPECT_EQ(met->String(0), "running");
  EXPECT_EQ(met->Int(1), 0);
}

// A file from before job_counts gets the jobs it holds counted by the
// migration (the store's writes move the counters after it: the conformance
// suite's CountJobsFollowsEveryWriteOfAJob).
TEST_F(SchemaTest, TheJobCountsMigrationCountsTheJobsAlreadyStored) {
  ASSERT_TRUE(MigrateToBefore("job counts per queue and status").ok());
  auto insert = [&](const std::string& id, const std::string& queue, const std::string& status) {
    return conn_->ExecScript(
        "INSERT INTO jobs (id, queue_name, status, priority, retry_count, max_retries,"
        " timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, created_at,"
        " updated_at, scheduled_at, completed_at) VALUES ('" +
        id + "', '" + queue + "', '" + status + "', 0, 0, 3, 30, 1, 1, 1, 1, 1, 1, " +
        (status == "completed" ? "2" : "NULL") + ");");
  };
  ASSERT_TRUE(insert("a1", "a", "pending").ok());
  ASSERT_TRUE(insert("a2", "a", "completed").ok());
  ASSERT_TRUE(insert("a3", "a", "completed").ok());
  ASSERT_TRUE(insert("b1", "b", "pending").ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  auto counts = [&] {
    auto stmt = conn_->Prepare(
        "SELECT group_concat(queue_name || ':' || status || '=' || n, ',') FROM"
        " (SELECT * FROM job_counts WHERE n <> 0 ORDER BY queue_name, status)");
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    EXPECT_TRUE(*stmt->Step());
    return stmt->String(0);
  };
  EXPECT_EQ(counts(), "a:completed=2,a:pending=1,b:pending=1");
}

// The compact-storage migration rebuilds jobs (a seq key) and re-keys
// payloads and history by it. A file from before keeps every job, payload,
// result and history entry (text ids read back as stored, in order), and
// every row that references a job by id (tags, dependencies, workflow
// membership, revivals); deleting a job afterwards still takes all of them.
TEST_F(SchemaTest, TheCompactStorageMigrationKeepsEveryJobAndWhatHangsOffIt) {
  ASSERT_TRUE(MigrateToBefore("compact job storage: jobs.seq keys payloads and history").ok());
  auto insert = [&](const std::string& id, const std::string& status) {
    return conn_->ExecScript(
        "INSERT INTO jobs (id, queue_name, status, priority, retry_count, max_retries,"
        " timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms, created_at,"
        " updated_at, scheduled_at, completed_at) VALUES ('" +
        id + "', 'q', '" + status + "', 0, 0, 3, 30, 1, 1, 1, 1, 1, 1, " +
        (status == "completed" ? "2" : "NULL") + ");");
  };
  ASSERT_TRUE(insert("j-b", "completed").ok());  // inserted first: seq 1
  ASSERT_TRUE(insert("j-a", "blocked").ok());
  ASSERT_TRUE(
      conn_
          ->ExecScript(
              "INSERT INTO job_payloads VALUES ('j-b', '{\"x\":1}', '\"done\"');"
              "INSERT INTO job_payloads VALUES ('j-a', '{\"y\":2}', NULL);"
              "INSERT INTO job_history (id, job_id, event_type, worker_id, details,"
              " created_at, node_id) VALUES"
              " ('h3', 'j-b', 'completed', NULL, '{}', 5, 'n1'),"
              " ('h1', 'j-b', 'created', NULL, '{\"queue_name\":\"q\"}', 1, NULL),"
              " ('h2', 'j-b', 'processing', 'w', '{}', 5, 'n1'),"
              " ('h4', 'j-a', 'created', NULL, '{}', 1, NULL);"
              "INSERT INTO job_tags VALUES ('j-b', 'k', 'v');"
              "INSERT INTO workflows (id, name, metadata, created_at) VALUES ('wf', 'w', '{}', 1);"
              "INSERT INTO workflow_jobs VALUES ('j-a', 'wf', 'a', 0);"
              "INSERT INTO job_dependencies (job_id, depends_on_job_id, mode)"
              " VALUES ('j-a', 'j-b', 'all');"
              "INSERT INTO job_auto_revivals VALUES ('j-b', 1);")
          .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(*SchemaVersion(*conn_), Migrations().back().version);
  EXPECT_EQ(One("SELECT group_concat(seq || '=' || id || ':' || status, ',')"
                " FROM (SELECT * FROM jobs ORDER BY seq)"),
            "1=j-b:completed,2=j-a:blocked");
  EXPECT_EQ(One("SELECT group_concat(j.id || ':' || p.payload || ':' || ifnull(p.result, '-'), ',')"
                " FROM (SELECT * FROM job_payloads ORDER BY job_seq) p"
                " JOIN jobs j ON j.seq = p.job_seq"),
            "j-b:{\"x\":1}:\"done\",j-a:{\"y\":2}:-");
  // Ties in created_at keep their insertion order (h3 before h2).
  EXPECT_EQ(HistoryOf("j-b"), "h1:created,h3:completed,h2:processing");
  EXPECT_EQ(One("SELECT count(*) FROM job_tags WHERE job_id = 'j-b'"), "1");
  EXPECT_EQ(One("SELECT count(*) FROM job_dependencies"), "1");
  EXPECT_EQ(One("SELECT count(*) FROM workflow_jobs"), "1");
  EXPECT_EQ(One("SELECT count(*) FROM job_auto_revivals"), "1");
  EXPECT_EQ(One("PRAGMA foreign_keys"), "1");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");

  // The references hold after the rebuild: a job that does not exist has
  // no payload, and deleting one takes its rows in every table.
  EXPECT_FALSE(conn_->ExecScript("INSERT INTO job_payloads VALUES (99, '{}', NULL);").ok());
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE id = 'j-b';").ok());
  EXPECT_EQ(One("SELECT (SELECT count(*) FROM job_payloads) || ',' ||"
                " (SELECT count(*) FROM job_history) || ',' || (SELECT count(*) FROM job_tags)"
                " || ',' || (SELECT count(*) FROM job_dependencies) || ',' ||"
                " (SELECT count(*) FROM job_auto_revivals)"),
            "1,1,0,0,0");
}

// Version 25 rebuilds the three listing indexes without the id: a store
// from before keeps its jobs, and each index ends at created_at (the rowid,
// seq, breaks ties), whole and consistent with the table.
TEST_F(SchemaTest, TheListingIndexesLoseTheIdAndKeepEveryJob) {
  ASSERT_TRUE(MigrateToBefore("listing indexes without the job id").ok());
  for (const char* id : {"j-2", "j-1", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  ASSERT_TRUE(MigrateThrough("listing indexes without the job id").ok());
  EXPECT_EQ(One("SELECT group_concat(name || ':' || sql, ';') FROM (SELECT * FROM sqlite_master"
                " WHERE name IN ('jobs_listing', 'jobs_queue_created', 'jobs_created')"
                " ORDER BY name)"),
            "jobs_created:CREATE INDEX jobs_created ON jobs (created_at);"
            "jobs_listing:CREATE INDEX jobs_listing ON jobs (queue_name, status, created_at);"
            "jobs_queue_created:CREATE INDEX jobs_queue_created ON jobs (queue_name, created_at)");
  EXPECT_EQ(One("SELECT group_concat(id, ',') FROM (SELECT id FROM jobs INDEXED BY jobs_listing"
                " WHERE queue_name = 'q' AND status = 'pending' ORDER BY created_at, seq)"),
            "j-2,j-1,j-3");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
}

// Version 26 packs each job's history into segments (history_codec.h). A
// store from before keeps every entry of every job with every field and its
// id (16 bytes or text), in the order it was read (created_at, then rowid);
// a history longer than a segment takes several; the old table is gone, and
// deleting a job still takes its history.
TEST_F(SchemaTest, PackingTheHistoryKeepsEveryEntryWithItsId) {
  ASSERT_TRUE(MigrateToBefore("a job's history packed into segments").ok());
  for (const char* id : {"j-1", "j-2", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  // j-1: a UUID id as its 16 bytes, a text id, a tie in created_at (rowid
  // order), a worker and a node; j-2: 30 entries of 200-byte errors; j-3
  // none.
  std::string script =
      "INSERT INTO job_history (job_seq, id, event_type, worker_id, details, created_at, node_id)"
      " VALUES (1, x'01a243de882f7596bc9e152d007ef52f', 'created', NULL,"
      " '{\"queue_name\":\"q\"}', 7, 'n1'),"
      " (1, 'h-3', 'completed', 'w', '{}', 9, 'n1'),"
      " (1, 'h-2', 'processing', 'w',"
      " '{\"lease_id\":\"01a243de-882f-7596-bc9e-152d007ef530\",\"attempt\":1}', 9, NULL)";
  for (int i = 0; i < 30; ++i) {
    script += ", (2, 'e-" + std::to_string(i) + "', 'retry_scheduled', 'w', '{\"error\":\"" +
              std::string(200, static_cast<char>('a' + i % 26)) + "\"}', " +
              std::to_string(100 - i) + ", 'n2')";
  }
  ASSERT_TRUE(conn_->ExecScript(script + ";").ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_FALSE(TableExists("job_history_v25"));
  EXPECT_EQ(HistoryOf("j-1"),
            "01a243de-882f-7596-bc9e-152d007ef52f:created,h-3:completed,h-2:processing");
  std::string j2;
  for (int i = 29; i >= 0; --i)
    j2 += (j2.empty() ? "" : ",") + ("e-" + std::to_string(i)) + ":retry_scheduled";
  EXPECT_EQ(HistoryOf("j-2"), j2);
  EXPECT_EQ(HistoryOf("j-3"), "");
  EXPECT_EQ(One("SELECT count(*) FROM job_history WHERE job_seq = 1"), "1");
  EXPECT_GT(std::stoi(One("SELECT count(*) FROM job_history WHERE job_seq = 2")), 4);
  EXPECT_LE(std::stoi(One("SELECT max(length(entries)) FROM job_history")),
            static_cast<int>(history::kSegmentBytes));
  // Every field of an entry: decoded in full for j-1's processing entry.
  {
    auto stmt = conn_->Prepare("SELECT entries FROM job_history WHERE job_seq = 1");
    ASSERT_TRUE(stmt.ok() && *stmt->Step());
    std::vector<HistoryEntry> entries;
    size_t index = 0;
    ASSERT_TRUE(history::DecodeSegment(stmt->Blob(0), 1, "j-1", index, entries).ok());
    ASSERT_EQ(entries.size(), 3u);
    EXPECT_EQ(entries[2],
              (HistoryEntry{"h-2", "j-1", "processing", "w",
                            R"({"lease_id":"01a243de-882f-7596-bc9e-152d007ef530","attempt":1})",
                            InstantFromMicros(9), std::nullopt}));
    EXPECT_EQ(entries[0],
              (HistoryEntry{"01a243de-882f-7596-bc9e-152d007ef52f", "j-1", "created", std::nullopt,
                            R"({"queue_name":"q"})", InstantFromMicros(7), "n1"}));
  }
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE id = 'j-2';").ok());
  EXPECT_EQ(One("SELECT count(*) FROM job_history"), "1");
}

// Version 27 moves a job's lease from jobs to job_leases. A store from
// before keeps every job with its seq (the key of its payload and history),
// the lease of each processing job becomes its row of job_leases, the
// columns and the jobs_lease index are gone, and the references hold.
TEST_F(SchemaTest, TheLeaseMovesToATableOfItsOwn) {
  ASSERT_TRUE(MigrateToBefore("a job's lease in a table of its own").ok());
  std::string indexes = IndexesOf("jobs");
  const std::string lease_index = "jobs_lease,";
  ASSERT_NE(indexes.find(lease_index), std::string::npos) << indexes;
  indexes.erase(indexes.find(lease_index), lease_index.size());
  for (const char* id : {"j-1", "j-2", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  ASSERT_TRUE(
      conn_
          ->ExecScript("DELETE FROM jobs WHERE id = 'j-1';"  // seq 2 and 3 remain, 1 is free
                       "UPDATE jobs SET status = 'processing', started_at = 8,"
                       " assigned_worker_id = 'w-7', lease_id = 'l-3', lease_expires_at = 38"
                       " WHERE id = 'j-3';"
                       "INSERT INTO job_payloads VALUES (3, '{\"x\":3}', NULL);"
                       "INSERT INTO job_history VALUES (3, 0, x'00');")
          .ok());
  ASSERT_TRUE(MigrateThrough("a job's lease in a table of its own").ok());
  // The rebuilt table has every index the old one had but jobs_lease.
  EXPECT_EQ(IndexesOf("jobs"), indexes);
  EXPECT_EQ(IndexesOf("job_leases"), "job_leases_expiry");
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(One("SELECT group_concat(seq || '=' || id || ':' || status, ',')"
                " FROM (SELECT * FROM jobs ORDER BY seq)"),
            "2=j-2:pending,3=j-3:processing");
  EXPECT_EQ(One("SELECT group_concat(job_seq || ':' || assigned_worker_id || ':' || lease_id"
                " || ':' || lease_expires_at, ',') FROM job_leases"),
            "3:w-7:l-3:38");
  EXPECT_EQ(One("SELECT count(*) FROM pragma_table_info('jobs')"
                " WHERE name IN ('assigned_worker_id', 'lease_id', 'lease_expires_at')"),
            "0");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
  // The job reads back with its lease, and deleting it takes its payload,
  // history and lease.
  {
    auto job = conn_->Prepare(sql::kGetJob);
    ASSERT_TRUE(job.ok());
    const std::string id = "j-3";
    job->Bind(1, id);
    ASSERT_TRUE(*job->Step());
    Result<Job> read = ReadJob(*job);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(read->assigned_worker_id, "w-7");
    EXPECT_EQ(read->lease_id, "l-3");
    EXPECT_EQ(read->lease_expires_at, InstantFromMicros(38));
    EXPECT_EQ(read->payload, "{\"x\":3}");
  }
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE id = 'j-3';").ok());
  EXPECT_EQ(
      One("SELECT (SELECT count(*) FROM job_leases) || ',' ||"
          " (SELECT count(*) FROM job_payloads) || ',' || (SELECT count(*) FROM job_history)"),
      "0,0,0");
}

// Version 28 replaces jobs_retention with an index for each status whose
// jobs it deletes by age: the jobs stay, and each index holds its status's
// jobs only.
TEST_F(SchemaTest, RetentionHasAnIndexPerStatus) {
  ASSERT_TRUE(MigrateToBefore("retention indexes by status").ok());
  for (const char* id : {"j-1", "j-2", "j-3"}) ASSERT_TRUE(InsertPendingJob(id).ok());
  ASSERT_TRUE(conn_
                  ->ExecScript("UPDATE jobs SET status = 'completed', completed_at = 9"
                               " WHERE id = 'j-1';"
                               "UPDATE jobs SET status = 'cancelled', completed_at = 9"
                               " WHERE id = 'j-2';")
                  .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(One("SELECT count(*) FROM sqlite_master WHERE name = 'jobs_retention'"), "0");
  EXPECT_EQ(One("SELECT group_concat(id, ',') FROM jobs INDEXED BY jobs_completed_retention"
                " WHERE status = 'completed'"),
            "j-1");
  EXPECT_EQ(One("SELECT group_concat(id, ',') FROM jobs INDEXED BY jobs_cancelled_retention"
                " WHERE status = 'cancelled'"),
            "j-2");
  EXPECT_EQ(One("SELECT count(*) FROM jobs"), "3");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
}

// Version 29 keeps each queue's name once, in queue_names, and in jobs its
// id; stores a job's id as its 16 bytes when it is a UUID; and a finished
// job's updated_at once, as its completed_at. A store from
// before keeps every job with its seq, its queue and its id (as text when it
// is not a UUID), each index of jobs is as it was with queue_id for
// queue_name, the tables that refer to a job by id follow it, and the
// references hold: a job of an id not in queue_names is refused, a name a
// job is in cannot go, and deleting a job takes its rows everywhere.
TEST_F(SchemaTest, AQueueNameIsKeptOnceAndAJobIdIs16Bytes) {
  ASSERT_TRUE(MigrateToBefore("a queue's name kept once, a job's id as 16 bytes").ok());
  const std::string kIndexes =
      "SELECT group_concat(name || ':' || replace(sql, 'queue_name', 'queue_id'), ';') FROM"
      " (SELECT * FROM sqlite_master WHERE type = 'index'"
      " AND tbl_name IN ('jobs', 'job_tags', 'job_dependencies', 'workflow_jobs',"
      " 'job_auto_revivals') AND sql IS NOT NULL ORDER BY name)";
  const std::string indexes = One(kIndexes);
  ASSERT_NE(indexes.find("jobs_listing:CREATE INDEX jobs_listing ON jobs (queue_id, status,"),
            std::string::npos)
      << indexes;
  const std::string a = "01a243de-882f-708e-a89a-e436b9173288";
  const std::string b = "01a243de-882f-708e-a89a-e436b9173289";
  for (const std::string& id : {std::string("j-0"), std::string("j-1"), a, b}) {
    ASSERT_TRUE(InsertPendingJob(id).ok());
  }
  ASSERT_TRUE(conn_
                  ->ExecScript("DELETE FROM jobs WHERE id = 'j-0';"  // seq 1 is free
                               "UPDATE jobs SET queue_name = 'emails', status = 'completed',"
                               " completed_at = 9, updated_at = 9 WHERE id = '" +
                               b +
                               "';"
                               "INSERT INTO job_payloads VALUES (4, '{\"x\":3}', NULL);"
                               "INSERT INTO job_tags VALUES ('" +
                               b +
                               "', 'k', 'v');"
                               "INSERT INTO job_dependencies (job_id, depends_on_job_id, mode)"
                               " VALUES ('" +
                               a + "', '" + b +
                               "', 'all');"
                               "INSERT INTO workflows (id, name, metadata, created_at)"
                               " VALUES ('w', 'w', '{}', 1);"
                               "INSERT INTO workflow_jobs VALUES ('" +
                               a +
                               "', 'w', 'first', 0);"
                               "INSERT INTO job_auto_revivals VALUES ('" +
                               b + "', 2);")
                  .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(One(kIndexes), indexes);
  EXPECT_EQ(One("SELECT group_concat(id || '=' || name, ',') FROM"
                " (SELECT * FROM queue_names ORDER BY id)"),
            "1=emails,2=q");
  EXPECT_EQ(One("SELECT group_concat(seq || '=' || typeof(id) || ':' || hex(id) || ':' || queue_id,"
                " ',') FROM (SELECT * FROM jobs ORDER BY seq)"),
            "2=text:6A2D31:2,3=blob:01A243DE882F708EA89AE436B9173288:2,"
            "4=blob:01A243DE882F708EA89AE436B9173289:1");
  EXPECT_EQ(One("SELECT count(*) FROM pragma_table_info('jobs') WHERE name = 'queue_name'"), "0");
  // A finished job's updated_at, the same as its completed_at, is not kept twice.
  EXPECT_EQ(One("SELECT group_concat(coalesce(updated_at, 'NULL'), ',') FROM"
                " (SELECT * FROM jobs ORDER BY seq)"),
            "7,7,NULL");
  EXPECT_EQ(One("SELECT (SELECT hex(job_id) FROM job_tags) || ','"
                " || (SELECT hex(job_id) || '>' || hex(depends_on_job_id) FROM job_dependencies)"
                " || ',' || (SELECT hex(job_id) FROM workflow_jobs)"
                " || ',' || (SELECT hex(job_id) FROM job_auto_revivals)"),
            "01A243DE882F708EA89AE436B9173289,"
            "01A243DE882F708EA89AE436B9173288>01A243DE882F708EA89AE436B9173289,"
            "01A243DE882F708EA89AE436B9173288,01A243DE882F708EA89AE436B9173289");
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
  {
    auto job = conn_->Prepare(sql::kGetJob);
    ASSERT_TRUE(job.ok());
    job->Bind(1, b);
    ASSERT_TRUE(*job->Step());
    Result<Job> read = ReadJob(*job);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    EXPECT_EQ(read->id, b);
    EXPECT_EQ(read->queue_name, "emails");
    EXPECT_EQ(read->updated_at, InstantFromMicros(9));
    EXPECT_EQ(read->payload, "{\"x\":3}");
  }
  {
    auto job = conn_->Prepare(sql::kGetJob);
    ASSERT_TRUE(job.ok());
    job->Bind(1, "j-1");
    ASSERT_TRUE(*job->Step());
    EXPECT_EQ(ReadJob(*job)->id, "j-1");
  }
  EXPECT_FALSE(conn_->ExecScript("UPDATE jobs SET queue_id = 3 WHERE seq = 2;").ok());
  EXPECT_FALSE(conn_->ExecScript("DELETE FROM queue_names WHERE name = 'emails';").ok());
  ASSERT_TRUE(conn_->ExecScript("DELETE FROM jobs WHERE seq = 4;").ok());
  EXPECT_TRUE(conn_->ExecScript("DELETE FROM queue_names WHERE name = 'emails';").ok());
  EXPECT_EQ(
      One("SELECT (SELECT count(*) FROM job_tags) || (SELECT count(*) FROM job_dependencies)"
          " || (SELECT count(*) FROM job_auto_revivals) || (SELECT count(*) FROM workflow_jobs)"),
      "0001");
}

// Migrations run with foreign keys off (a table rebuild needs it), so
// Migrate checks every reference before it commits: a migration that leaves
// a row pointing nowhere is rolled back whole, and foreign keys are on again
// whether it failed or not.
TEST_F(SchemaTest, AMigrationThatLeavesADanglingReferenceIsRolledBack) {
  std::vector<Migration> dangling = {
      {1, "parent", "CREATE TABLE p (id INTEGER PRIMARY KEY);"},
      {2, "child", "CREATE TABLE c (pid INTEGER REFERENCES p (id)); INSERT INTO c VALUES (7);"}};
  Status st = Migrate(*conn_, dangling);
  EXPECT_EQ(st.code(), ErrorCode::kInternal) << st.ToString();
  EXPECT_NE(st.message().find("row of c referencing a missing row of p"), std::string::npos)
      << st.ToString();
  EXPECT_FALSE(conn_->InTransaction());
  EXPECT_EQ(*SchemaVersion(*conn_), 0);
  EXPECT_FALSE(TableExists("c"));
  auto fk = conn_->Prepare("PRAGMA foreign_keys");
  ASSERT_TRUE(*fk->Step());
  EXPECT_EQ(fk->Int(0), 1);
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
