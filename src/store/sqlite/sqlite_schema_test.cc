#include "store/sqlite/sqlite_schema.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "store/sqlite/schema_test_util.h"

namespace redrive::store::sqlite {
namespace {

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

// Version 30 rewrites the CHECKs that list several values as comparisons:
// before it an UPDATE of a job's status fills an ephemeral table with the
// list (OpenEphemeral in its program), after it not; every value is still
// accepted and any other refused, on this connection and on a new one.
TEST_F(SchemaTest, ChecksOfSeveralValuesAreComparisonsThatAcceptTheSameValues) {
  ASSERT_TRUE(MigrateToBefore("CHECKs of several values as comparisons").ok());
  // The OpenEphemeral instructions of the statement's program (EXPLAIN's
  // second column is the opcode).
  auto ephemeral_tables = [&](const std::string& update) {
    auto program = conn_->Prepare("EXPLAIN " + update);
    EXPECT_TRUE(program.ok()) << program.status().ToString();
    if (!program.ok()) return -1;
    int n = 0;
    while (*program->Step()) n += program->String(1) == "OpenEphemeral";
    return n;
  };
  const std::string kSetStatus = "UPDATE jobs SET status = 'processing' WHERE seq = 1";
  const std::string kSetReason = "UPDATE jobs SET dead_reason = 'expired' WHERE seq = 1";
  const std::string kSetDelivery =
      "UPDATE webhook_deliveries SET status = 'delivered' WHERE id = 'd'";
  EXPECT_EQ(ephemeral_tables(kSetStatus), 1);
  EXPECT_EQ(ephemeral_tables(kSetReason), 1);
  EXPECT_EQ(ephemeral_tables(kSetDelivery), 1);
  ASSERT_TRUE(conn_
                  ->ExecScript("INSERT INTO queue_names (id, name) VALUES (1, 'q');"
                               "INSERT INTO jobs (id, queue_id, status, priority, retry_count,"
                               " max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms,"
                               " backoff_jitter_ms, created_at, updated_at, scheduled_at)"
                               " VALUES ('j', 1, 'pending', 0, 0, 3, 30, 1, 1, 1, 7, 7, 7);"
                               "INSERT INTO webhooks (id, name, url, events, secret, enabled,"
                               " format, created_at, updated_at) VALUES ('w', 'n', 'http://x/',"
                               " 'job.failed', 's', 1, 'json', 1, 1);"
                               "INSERT INTO webhook_deliveries (id, webhook_id, event_id, event,"
                               " body, status, attempts, next_attempt_at, created_at)"
                               " VALUES ('d', 'w', 'e', 'job.failed', '{}', 'pending', 0, 7, 1);")
                  .ok());
  ASSERT_TRUE(Migrate(*conn_).ok());
  EXPECT_EQ(ephemeral_tables(kSetStatus), 0);
  EXPECT_EQ(ephemeral_tables(kSetReason), 0);
  EXPECT_EQ(ephemeral_tables(kSetDelivery), 0);
  EXPECT_EQ(One("SELECT count(*) FROM sqlite_master WHERE name IN ('jobs', 'webhook_deliveries')"
                " AND sql LIKE '%status IN (%'"),
            "0");
  ConnectionOptions options;
  options.writer = true;
  auto other = Connection::Open(dir_.File("s.db"), options);
  ASSERT_TRUE(other.ok());
  for (Connection* c : {conn_.get(), other->get()}) {
    for (const char* status : {"pending", "scheduled", "processing", "completed", "cancelled",
                               "quarantined", "blocked"}) {
      EXPECT_TRUE(
          c->Exec(std::string("UPDATE jobs SET status = '") + status + "' WHERE id = 'j'").ok())
          << status;
    }
    EXPECT_FALSE(c->Exec("UPDATE jobs SET status = 'Pending' WHERE id = 'j'").ok());
    EXPECT_FALSE(c->Exec("UPDATE jobs SET status = NULL WHERE id = 'j'").ok());
    for (const char* reason :
         {"max_retries_exceeded", "lease_expired", "non_retryable", "expired"}) {
      EXPECT_TRUE(c->Exec(std::string("UPDATE jobs SET status = 'deadletter', deadlettered_at = 8,"
                                      " dead_reason = '") +
                          reason + "' WHERE id = 'j'")
                      .ok())
          << reason;
    }
    EXPECT_FALSE(c->Exec("UPDATE jobs SET dead_reason = 'crash' WHERE id = 'j'").ok());
    EXPECT_TRUE(c->Exec("UPDATE jobs SET status = 'pending', dead_reason = NULL,"
                        " deadlettered_at = NULL WHERE id = 'j'")
                    .ok());
    EXPECT_TRUE(
        c->Exec(
             "UPDATE webhook_deliveries SET status = 'delivered', delivered_at = 9 WHERE id = 'd'")
            .ok());
    for (const char* status : {"failed", "pending"}) {
      EXPECT_TRUE(c->Exec(std::string("UPDATE webhook_deliveries SET status = '") + status +
                          "', delivered_at = NULL WHERE id = 'd'")
                      .ok())
          << status;
    }
    EXPECT_FALSE(c->Exec("UPDATE webhook_deliveries SET status = 'sent' WHERE id = 'd'").ok());
  }
  EXPECT_EQ(One("PRAGMA integrity_check"), "ok");
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
