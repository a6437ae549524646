// The pure parts of the PostgreSQL store: SQLSTATE to Status, parameter
// encoding, the tags' JSON, the column table against the schema, and the
// migrations that changed how the jobs' rows are checked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "store/postgres/pg_connection.h"
#include "store/postgres/pg_database_for_test.h"
#include "store/postgres/pg_job_columns.h"
#include "store/postgres/pg_planner_statistics.h"
#include "store/postgres/pg_schema.h"
#include "store/postgres/pg_write_health.h"

namespace redrive::store::postgres {
namespace {

TEST(PlannerStatisticsTest, ATableIsAnalyzedOnceItHasDoubledPastTheFloor) {
  constexpr int64_t kFloor = kPlannerStatisticsMinPages;
  // Never analyzed (0 pages then): from the floor on.
  EXPECT_FALSE(PlannerStatisticsStale(0, 0));
  EXPECT_FALSE(PlannerStatisticsStale(0, kFloor - 1));
  EXPECT_TRUE(PlannerStatisticsStale(0, kFloor));
  // Analyzed at 3,000 pages: again at 6,000, not before.
  EXPECT_FALSE(PlannerStatisticsStale(3000, 3000));
  EXPECT_FALSE(PlannerStatisticsStale(3000, 5999));
  EXPECT_TRUE(PlannerStatisticsStale(3000, 6000));
  EXPECT_TRUE(PlannerStatisticsStale(3000, 1'000'000));
  // Analyzed small: again at the floor, not at every doubling below it
  // (each would make every plan again, for estimates alone).
  EXPECT_FALSE(PlannerStatisticsStale(16, 32));
  EXPECT_FALSE(PlannerStatisticsStale(kFloor / 4, kFloor - 1));
  EXPECT_TRUE(PlannerStatisticsStale(kFloor / 4, kFloor));
  // A table that shrank needs nothing.
  EXPECT_FALSE(PlannerStatisticsStale(1'000'000, 10));
  EXPECT_FALSE(PlannerStatisticsStale(1'000'000, 2 * kFloor));
}

TEST(PgErrorTest, MapsSqlstatesToTheContractsCodes) {
  EXPECT_EQ(PgError("40001", "could not serialize", true).code(), ErrorCode::kAborted);
  EXPECT_EQ(PgError("40P01", "deadlock detected", true).code(), ErrorCode::kAborted);
  // A statement prepared before a column changed type is known by where
  // PostgreSQL raised it, not by its text; any other unsupported feature is a bug.
  EXPECT_TRUE(PgStalePlan("0A000", "RevalidateCachedQuery"));
  EXPECT_FALSE(PgStalePlan("0A000", "transformLockingClause"));
  EXPECT_FALSE(PgStalePlan("XX000", "RevalidateCachedQuery"));
  EXPECT_EQ(
      PgError("0A000", "cached plan must not change result type", true, "RevalidateCachedQuery")
          .code(),
      ErrorCode::kAborted);
  EXPECT_EQ(PgError("0A000", "FOR UPDATE is not allowed with GROUP BY", true).code(),
            ErrorCode::kInternal);
  for (const char* s : {"08006", "08001", "57P01", "57P02", "57P03", "25006"}) {
    EXPECT_EQ(PgError(s, "x", true).code(), ErrorCode::kUnavailable) << s;
  }
  EXPECT_EQ(PgError("23505", "duplicate key", true).code(), ErrorCode::kConflict);
  Status other = PgError("23514", "violates check constraint", true);
  EXPECT_EQ(other.code(), ErrorCode::kInternal);
  EXPECT_THAT(other.message(), ::testing::HasSubstr("violates check constraint"));
  // libpq's own failures: a lost connection, or a bug.
  EXPECT_EQ(PgError("", "server closed the connection", false).code(), ErrorCode::kUnavailable);
  EXPECT_EQ(PgError("", "no such statement", true).code(), ErrorCode::kInternal);
  // Whatever the server said, a connection that is gone is UNAVAILABLE.
  EXPECT_EQ(PgError("XX000", "x", false).code(), ErrorCode::kUnavailable);
  // The database cannot write now: 503, and the connection stays.
  for (const char* s : {"53100", "53200", "53300", "58030"}) {
    EXPECT_EQ(PgError(s, "x", true).code(), ErrorCode::kUnavailable) << s;
    EXPECT_FALSE(PgConnectionLost(s, true)) << s;
  }
  for (const char* s : {"08006", "57P01", "25006"}) EXPECT_TRUE(PgConnectionLost(s, true)) << s;
  EXPECT_FALSE(PgConnectionLost("23505", true));
  EXPECT_TRUE(PgConnectionLost("", false));
}

TEST(PgWriteHealthTest, ACommitWaitingPastTheBoundFailsReadinessUntilItEnds) {
  using std::chrono::milliseconds;
  const auto t0 = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);
  PgWriteHealth health(milliseconds(500));
  EXPECT_TRUE(health.Check(t0).ok());
  uint64_t slow = health.CommitStarted(t0);
  uint64_t quick = health.CommitStarted(t0 + milliseconds(400));
  health.CommitFinished(quick, true);
  EXPECT_TRUE(health.Check(t0 + milliseconds(500)).ok());  // not past the bound yet
  Status stalled = health.Check(t0 + milliseconds(1500));
  EXPECT_EQ(stalled.code(), ErrorCode::kUnavailable);
  EXPECT_THAT(stalled.message(), ::testing::HasSubstr("has waited 1.5 s"));
  EXPECT_FALSE(health.failing());  // a stall is not a failed write
  health.CommitFinished(slow, true);
  EXPECT_TRUE(health.Check(t0 + milliseconds(1500)).ok());
}

TEST(PgWriteHealthTest, AWriteTheDatabaseCouldNotMakeFailsReadinessUntilACommit) {
  const auto now = std::chrono::steady_clock::time_point{};
  PgWriteHealth health(std::chrono::seconds(5));
  // Errors of the request, not of the database, say nothing about health.
  health.RecordWriteError("23505", "duplicate key");
  health.RecordWriteError("", "");
  EXPECT_TRUE(health.Check(now).ok());
  health.RecordWriteError("53100", "could not extend file: No space left on device");
  EXPECT_TRUE(health.failing());
  Status st = health.Check(now);
  EXPECT_EQ(st.code(), ErrorCode::kUnavailable);
  EXPECT_THAT(st.message(), ::testing::HasSubstr("No space left on device"));
  // A commit that did not commit leaves it failing; one that did clears it.
  health.CommitFinished(health.CommitStarted(now), false);
  EXPECT_TRUE(health.failing());
  health.CommitFinished(health.CommitStarted(now), true);
  EXPECT_FALSE(health.failing());
  EXPECT_TRUE(health.Check(now).ok());
}

TEST(PgParamsTest, TextArraysQuoteEveryElement) {
  PgParams p;
  p.AddTextArray({"a", "b\"c", "d\\e", "", "NULL", "{x,y}"});
  p.AddTextArray({});
  ASSERT_EQ(p.size(), 2);
  EXPECT_STREQ(p.values()[0], R"({"a","b\"c","d\\e","","NULL","{x,y}"})");
  EXPECT_STREQ(p.values()[1], "{}");
}

// How many migrations come before the one named `name`.
size_t MigrationsBefore(std::string_view name) {
  size_t before = 0;
  while (PgMigrations()[before].name != name) ++before;
  return before;
}

// A query of the file of redrive.jobs and of each of its indexes but those
// `except` lists (quoted names): a migration that rewrote and rebuilt none
// of them leaves its answer as it was.
std::string JobsFilesSql(const std::string& except) {
  return "SELECT string_agg(c.relname || '=' || pg_relation_filenode(c.oid), ','"
         " ORDER BY c.relname) FROM pg_class c WHERE (c.oid = 'redrive.jobs'::regclass OR"
         " c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'redrive.jobs'::regclass))"
         " AND c.relname NOT IN (" +
         except + ")";
}

// kPgJobColumns names every column of redrive.jobs, in table order, with
// the type the schema gives it.
TEST(PgJobColumnsTest, MatchTheSchema) {
  auto conn = Connect(FreshDatabaseUrl());
  ASSERT_TRUE(PgMigrate(*conn).ok());
  auto r = conn->Exec(
      "SELECT column_name, data_type FROM information_schema.columns"
      " WHERE table_schema = 'redrive' AND table_name = 'jobs' ORDER BY ordinal_position");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows(), kPgJobColumnCount);
  for (int i = 0; i < kPgJobColumnCount; ++i) {
    EXPECT_EQ(r->String(i, 0), kPgJobColumns[i].name);
    EXPECT_EQ(r->String(i, 1), kPgJobColumns[i].type) << kPgJobColumns[i].name;
  }
}

// A database from before job_counts gets the jobs it holds counted by the
// migration (the store's writes move the counters after it: the conformance
// suite's CountJobsFollowsEveryWriteOfAJob).
TEST(PgSchemaTest, TheJobCountsMigrationCountsTheJobsAlreadyStored) {
  auto conn = Connect(FreshDatabaseUrl());
  const size_t before = MigrationsBefore("job counts per queue and status");
  ASSERT_TRUE(PgMigrate(*conn, PgMigrations().first(before)).ok());
  auto insert = [&](const std::string& id, const std::string& queue, const std::string& status) {
    return conn
        ->Exec(
            "INSERT INTO redrive.jobs (id, queue_name, status, payload, priority,"
            " retry_count, max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms,"
            " backoff_jitter_ms, created_at, updated_at, scheduled_at, completed_at) VALUES ('" +
            id + "', '" + queue + "', '" + status + "', '{}', 0, 0, 3, 30, 1, 1, 1, 1, 1, 1, " +
            (status == "completed" ? "2" : "NULL") + ")")
        .status();
  };
  ASSERT_TRUE(insert("a1", "a", "pending").ok());
  ASSERT_TRUE(insert("a2", "a", "completed").ok());
  ASSERT_TRUE(insert("a3", "a", "completed").ok());
  ASSERT_TRUE(insert("b1", "b", "pending").ok());
  ASSERT_TRUE(PgMigrate(*conn).ok());
  const std::string kCounts =
      "SELECT string_agg(queue_name || ':' || status || '=' || n, ',' ORDER BY queue_name, status)"
      " FROM (SELECT queue_name, status, sum(n) AS n FROM redrive.job_counts"
      " GROUP BY queue_name, status HAVING sum(n) <> 0) AS c";
  EXPECT_EQ(Scalar(*conn, kCounts), "a:completed=2,a:pending=1,b:pending=1");
}

// A database from before the domains keeps its rows and its files (no row
// rewritten, the large indexes not rebuilt), and refuses every value the
// dropped CHECKs refused, with the same SQLSTATE; the checks across columns,
// of status and of tags stay on the table (until version 26, below).
TEST(PgSchemaTest, TheDomainsMigrationKeepsTheRowsAndRefusesWhatTheChecksRefused) {
  auto conn = Connect(FreshDatabaseUrl());
  const size_t before = MigrationsBefore("single-column checks of jobs as domains");
  ASSERT_TRUE(PgMigrate(*conn, PgMigrations().first(before)).ok());
  auto exec = [&](const std::string& sql) { return conn->Exec(sql).status(); };
  ASSERT_TRUE(
      exec("INSERT INTO redrive.jobs (id, queue_name, status, payload, priority,"
           " retry_count, max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms,"
           " backoff_jitter_ms, tags, created_at, updated_at, scheduled_at) VALUES"
           " ('p', 'q', 'pending', '{}', -100, 0, 3, 30, 1, 1, 1, '{\"k\":\"v\"}', 1, 1, 1),"
           " ('d', 'q', 'pending', '{}', 100, 3, 3, 1, 0, 0, 0, '{}', 2, 2, 2)")
          .ok());
  ASSERT_TRUE(exec("UPDATE redrive.jobs SET status = 'deadletter', deadlettered_at = 5,"
                   " dead_reason = 'lease_expired', error_fingerprint = '0123456789abcdef'"
                   " WHERE id = 'd'")
                  .ok());
  // The table and every index but the three small partial ones that name
  // a column made a domain (pg_job_checks_sql.cc, version 25).
  const std::string kFiles =
      JobsFilesSql("'jobs_claim', 'jobs_dlq_fingerprint', 'jobs_unfingerprinted'");
  const std::string files = Scalar(*conn, kFiles);
  const std::string kRows =
      "SELECT string_agg(concat_ws('|', id, status, priority, retry_count, tags, dead_reason,"
      " error_fingerprint), ',' ORDER BY id) FROM redrive.jobs";
  const std::string rows = Scalar(*conn, kRows);
  ASSERT_EQ(rows,
            "d|deadletter|100|3|{}|lease_expired|0123456789abcdef,p|pending|-100|0|{\"k\": "
            "\"v\"}");

  ASSERT_TRUE(PgMigrate(*conn, PgMigrations().first(before + 1)).ok());
  EXPECT_EQ(Scalar(*conn, kRows), rows);
  EXPECT_EQ(Scalar(*conn, kFiles), files);
  EXPECT_EQ(Scalar(*conn,
                   "SELECT count(*) FROM pg_constraint WHERE contype = 'c' AND"
                   " conrelid = 'redrive.jobs'::regclass"),
            "6");
  for (const char* set :
       {"status = 'done'", "dead_reason = 'tired'", "priority = 101", "priority = -101",
        "retry_count = -1", "max_retries = -1", "attempts = -1", "lease_expiries = -1",
        "crash_count = -1", "crash_limit = -1", "snooze_count = -1", "max_snoozes = -1",
        "timeout_seconds = 0", "backoff_base_ms = -1", "backoff_max_ms = -1",
        "backoff_jitter_ms = -1", "error_fingerprint = 'abc'", "tags = '[]'",
        // The checks across columns: a lease exactly while processing.
        "status = 'processing'"}) {
    Status st = exec(std::string("UPDATE redrive.jobs SET ") + set + " WHERE id = 'p'");
    EXPECT_FALSE(st.ok()) << set;
    EXPECT_THAT(st.message(), ::testing::HasSubstr("23514")) << set;
  }
  // What the CHECKs took, the domains take, through an array as the set-based
  // writes send it.
  EXPECT_TRUE(exec("UPDATE redrive.jobs j SET status = v.s, priority = v.p,"
                   " lease_id = 'l', lease_expires_at = 9, assigned_worker_id = 'w'"
                   " FROM unnest(ARRAY['processing']::text[], ARRAY[7]::int[]) AS v(s, p)"
                   " WHERE j.id = 'p'")
                  .ok());
  EXPECT_EQ(Scalar(*conn, "SELECT status || ' ' || priority FROM redrive.jobs WHERE id = 'p'"),
            "processing 7");
  Status bad_array = exec(
      "UPDATE redrive.jobs j SET status = v.s FROM unnest(ARRAY['gone']::text[]) AS v(s)"
      " WHERE j.id = 'd'");
  EXPECT_THAT(bad_array.message(), ::testing::HasSubstr("23514"));
}

// A database from before the row domain keeps its rows, its files (no row
// rewritten, no index rebuilt) and the statements a node of the version
// before prepared, and refuses what the six CHECKs refused, with the same
// SQLSTATE and the name of the invariant.
TEST(PgSchemaTest, TheRowDomainMigrationRebuildsNothingAndRefusesWhatTheChecksRefused) {
  const std::string url = FreshDatabaseUrl();
  auto conn = Connect(url);
  const size_t before = MigrationsBefore("invariants of a job's row as one domain");
  ASSERT_TRUE(PgMigrate(*conn, PgMigrations().first(before)).ok());
  auto exec = [&](const std::string& sql) { return conn->Exec(sql).status(); };
  ASSERT_TRUE(
      exec("INSERT INTO redrive.jobs (id, queue_name, status, payload, priority,"
           " retry_count, max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms,"
           " backoff_jitter_ms, tags, created_at, updated_at, scheduled_at, lease_id,"
           " lease_expires_at, assigned_worker_id) VALUES"
           " ('p', 'q', 'pending', '{}', 0, 0, 3, 30, 1, 1, 1, '{\"k\":\"v\"}', 1, 1, 1,"
           " NULL, NULL, NULL),"
           " ('w', 'q', 'processing', '{}', 0, 0, 3, 30, 1, 1, 1, '{}', 2, 2, 2, 'l', 9, 'w')")
          .ok());
  // A node of the version before, with a statement prepared.
  auto old_node = Connect(url);
  ASSERT_TRUE(old_node->Exec("PREPARE job(text) AS SELECT * FROM redrive.jobs WHERE id = $1").ok());
  const std::string kFiles = JobsFilesSql("''");
  const std::string files = Scalar(*conn, kFiles);
  const std::string kRows =
      "SELECT string_agg(concat_ws('|', id, status, tags, lease_id, assigned_worker_id), ','"
      " ORDER BY id) FROM redrive.jobs";
  const std::string rows = Scalar(*conn, kRows);
  ASSERT_EQ(rows, "p|pending|{\"k\": \"v\"},w|processing|{}|l|w");

  ASSERT_TRUE(PgMigrate(*conn).ok());
  EXPECT_EQ(Scalar(*conn, kRows), rows);
  EXPECT_EQ(Scalar(*conn, kFiles), files);
  EXPECT_EQ(Scalar(*conn,
                   "SELECT string_agg(conname, ',') FROM pg_constraint WHERE contype = 'c' AND"
                   " conrelid = 'redrive.jobs'::regclass"),
            "jobs_state_check");
  auto prepared = old_node->Exec("EXECUTE job('w')");
  ASSERT_TRUE(prepared.ok()) << prepared.status().ToString();
  EXPECT_EQ(prepared->rows(), 1);

  struct Refused {
    const char* id;
    const char* set;
    const char* invariant;
  };
  for (const Refused& r : std::initializer_list<Refused>{
           {"p", "status = 'done'", "status_is_known"},
           {"p", "tags = '[]'", "tags_are_an_object"},
           {"p", "status = 'processing'", "lease_exactly_while_processing"},
           {"p", "lease_id = 'l'", "lease_exactly_while_processing"},
           {"p", "lease_expires_at = 1", "lease_exactly_while_processing"},
           {"p", "assigned_worker_id = 'w'", "lease_exactly_while_processing"},
           {"w", "status = 'pending'", "lease_exactly_while_processing"},
           {"w", "status = 'completed', lease_id = NULL, lease_expires_at = NULL",
            "lease_exactly_while_processing"},
           {"p", "status = 'deadletter'", "dead_letter_has_time_and_reason"},
           {"p", "status = 'deadletter', deadlettered_at = 5", "dead_letter_has_time_and_reason"},
           {"p", "status = 'deadletter', dead_reason = 'expired'",
            "dead_letter_has_time_and_reason"}}) {
    Status st =
        exec(std::string("UPDATE redrive.jobs SET ") + r.set + " WHERE id = '" + r.id + "'");
    EXPECT_FALSE(st.ok()) << r.set;
    EXPECT_THAT(st.message(), ::testing::HasSubstr("23514")) << r.set;
    EXPECT_THAT(st.message(), ::testing::HasSubstr(r.invariant)) << r.set;
  }
  Status insert = exec(
      "INSERT INTO redrive.jobs (id, queue_name, status, payload, priority, retry_count,"
      " max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms,"
      " created_at, updated_at, scheduled_at) VALUES"
      " ('x', 'q', 'processing', '{}', 0, 0, 3, 30, 1, 1, 1, 3, 3, 3)");
  EXPECT_THAT(insert.message(), ::testing::HasSubstr("lease_exactly_while_processing"));
  EXPECT_EQ(Scalar(*conn, kRows), rows);

  // What the invariants allow passes, one row at a time or through arrays
  // as the set-based writes send them.
  EXPECT_TRUE(exec("UPDATE redrive.jobs SET status = 'deadletter', deadlettered_at = 5,"
                   " dead_reason = 'expired' WHERE id = 'p'")
                  .ok());
  EXPECT_TRUE(exec("UPDATE redrive.jobs j SET status = v.s, lease_id = NULL,"
                   " lease_expires_at = NULL, assigned_worker_id = NULL"
                   " FROM unnest(ARRAY['completed']::text[]) AS v(s) WHERE j.id = 'w'")
                  .ok());
  EXPECT_EQ(Scalar(*conn, kRows), "p|deadletter|{\"k\": \"v\"},w|completed|{}");
  Status bad_array = exec(
      "UPDATE redrive.jobs j SET status = v.s FROM unnest(ARRAY['gone']::text[]) AS v(s)"
      " WHERE j.id = 'w'");
  EXPECT_THAT(bad_array.message(), ::testing::HasSubstr("status_is_known"));
}

}  // namespace
}  // namespace redrive::store::postgres
