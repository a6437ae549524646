// The queries that run all the time must use their indexes: a claim that
// sorted, or scanned the table, would slow down as completed jobs pile up.
// EXPLAIN shows what the planner picks, both for a statement's first runs
// (a plan for the values given) and for the generic plan a prepared
// statement switches to after five runs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>

#include "store/postgres/pg_database_for_test.h"
#include "store/postgres/pg_job_sql.h"
#include "store/postgres/pg_schema.h"

namespace redrive::store::postgres {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// 20,000 finished jobs in three queues, a few hundred live ones of every
// other status, then ANALYZE: the planner sees a table like a real one.
constexpr char kFill[] = R"sql(
INSERT INTO redrive.jobs (id, queue_name, status, payload, result, priority, retry_count,
  max_retries, timeout_seconds, backoff_base_ms, backoff_max_ms, backoff_jitter_ms,
  created_at, updated_at, scheduled_at, completed_at, started_at, assigned_worker_id,
  lease_id, lease_expires_at, deadlettered_at, dead_reason, last_error, tags)
SELECT 'job-' || i, 'q' || (i % 3), s.status, '{}', NULL, (i % 7) - 3, 0, 3, 60, 1000,
  60000, 100, i, i, i + CASE WHEN s.status = 'scheduled' THEN 1000000 ELSE 0 END,
  CASE WHEN s.status IN ('completed','deadletter','cancelled') THEN i END,
  CASE WHEN s.status = 'processing' THEN i END,
  CASE WHEN s.status = 'processing' THEN 'w' || (i % 10) END,
  CASE WHEN s.status = 'processing' THEN 'l' || i END,
  CASE WHEN s.status = 'processing' THEN i + 30000000 END,
  CASE WHEN s.status = 'deadletter' THEN i END,
  CASE WHEN s.status = 'deadletter' THEN 'max_retries_exceeded' END,
  CASE WHEN s.status = 'deadletter' THEN 'boom' END,
  CASE WHEN i % 500 = 0 THEN jsonb_build_object('batch', 'b' || (i % 7000))
       ELSE jsonb_build_object('tenant', 't' || (i % 50)) END
FROM generate_series(1, 21000) AS i,
LATERAL (SELECT CASE WHEN i <= 20000 THEN 'completed'
                     ELSE (ARRAY['pending','scheduled','processing','deadletter','cancelled'])
                          [1 + i % 5] END AS status) AS s;
INSERT INTO redrive.job_history (id, job_id, event_type, details, created_at)
SELECT 'h-' || i, 'job-' || i, 'created', '{}', i FROM generate_series(1, 21000) AS i;
ANALYZE redrive.jobs;
ANALYZE redrive.job_history;
)sql";

class PgPlanTest : public ::testing::Test {
 protected:
  // One filled database for the whole suite: the tests only read it.
  static void SetUpTestSuite() {
    url_ = new std::string(FreshDatabaseUrl());
    auto conn = Connect(*url_);
    ASSERT_TRUE(PgMigrate(*conn).ok());
    auto filled = conn->Exec(kFill);
    ASSERT_TRUE(filled.ok()) << filled.status().ToString();
  }
  static void TearDownTestSuite() {
    delete url_;
    url_ = nullptr;
  }
  void SetUp() override { conn_ = Connect(*url_); }

  // The plan of `query` with `args` (SQL literals, one per $n), as text:
  // generic (as a prepared statement runs it from its sixth run) or custom.
  std::string Plan(const std::string& query, const std::string& args, bool generic) {
    std::string text = generic ? "SET plan_cache_mode = force_generic_plan;"
                               : "SET plan_cache_mode = force_custom_plan;";
    text += "DEALLOCATE ALL; PREPARE q AS " + query + "; EXPLAIN EXECUTE q";
    if (!args.empty()) text += "(" + args + ")";
    auto r = conn_->Exec(text);
    EXPECT_TRUE(r.ok()) << r.status().ToString() << "\n" << query;
    std::string plan;
    if (r.ok()) {
      for (int i = 0; i < r->rows(); ++i) plan += r->String(i, 0) + "\n";
    }
    return plan;
  }

  // Asserts both plans use `index` (or one whose name starts with it), never
  // scan the whole table and never sort.
  void ExpectIndexInOrder(const std::string& query, const std::string& args,
                          const std::string& index) {
    for (bool generic : {false, true}) {
      std::string plan = Plan(query, args, generic);
      EXPECT_THAT(plan, HasSubstr("using " + index)) << plan;
      EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
      EXPECT_THAT(plan, Not(HasSubstr("Sort"))) << plan;
    }
  }

  static std::string* url_;
  std::unique_ptr<PgConnection> conn_;
};

std::string* PgPlanTest::url_ = nullptr;

TEST_F(PgPlanTest, ClaimWalksThePendingIndexInClaimOrder) {
  ExpectIndexInOrder(sql::kSelectClaimable, "'q1', 5000, 10", "jobs_claim ");
  // And locks only what it returns: LockRows above the limited index scan.
  std::string plan = Plan(sql::kSelectClaimable, "'q1', 5000, 10", true);
  EXPECT_THAT(plan, HasSubstr("LockRows")) << plan;
}

TEST_F(PgPlanTest, SweepsUseTheirPartialIndexes) {
  ExpectIndexInOrder(sql::kSelectDueScheduled, "30000000, 100", "jobs_scheduled");
  ExpectIndexInOrder(sql::kSelectExpiredLeases, "30000000, 100", "jobs_lease");
  ExpectIndexInOrder(sql::kSelectRetentionExpired, "'q1', 'completed', 5000, 100",
                     "jobs_retention");
  for (bool generic : {false, true}) {
    std::string plan = Plan(sql::kSelectPastDeadline, "30000000, 100", generic);
    EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
  }
}

TEST_F(PgPlanTest, NextWakeTimesReadOneIndexEntry) {
  for (const char* q : {sql::kNextScheduled, sql::kNextLeaseExpiry}) {
    std::string plan = Plan(q, "", true);
    EXPECT_THAT(plan, HasSubstr("Index")) << plan;
    EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
  }
  ExpectIndexInOrder(sql::kOldestDeadletter, "'q1'", "jobs_dlq");
  ExpectIndexInOrder(sql::kOldestWaiting, "'q1'", "jobs_listing");
}

// NULL for each of the `n` parameters of a statement whose parameters are
// all typed by casts (EXPLAIN does not run it).
std::string Nulls(int n) {
  std::string args;
  for (int i = 0; i < n; ++i) args += i == 0 ? "NULL" : ", NULL";
  return args;
}

TEST_F(PgPlanTest, SetBasedWritesFindTheirRowsByKey) {
  const PgColumnSet changed =
      PgColumnBit(PgJobColumnIndex("status")) | PgColumnBit(PgJobColumnIndex("lease_id"));
  const int update_params = std::popcount(sql::AssignedColumns(changed)) + 3 + 6;
  for (bool generic : {false, true}) {
    std::string plan =
        Plan(std::string(sql::UpdateJobsSql(changed, true)), Nulls(update_params), generic);
    EXPECT_THAT(plan, HasSubstr("jobs_pkey")) << plan;
    EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
    // The checked forms a write of a locked job is deferred in, too.
    plan =
        Plan(std::string(sql::CheckedUpdateJobsSql(changed, true)), Nulls(update_params), generic);
    EXPECT_THAT(plan, HasSubstr("jobs_pkey")) << plan;
    EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
    if (generic) {  // a custom plan folds the NULL id away
      plan =
          Plan(std::string(sql::CheckedUpdateJobSql(changed, true)), Nulls(update_params), generic);
      EXPECT_THAT(plan, HasSubstr("jobs_pkey")) << plan;
      EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
    }
    // The history of deleted jobs is found through its index, not a scan.
    plan = Plan(sql::kDeleteJobs, "'{job-1,job-2}'", generic);
    EXPECT_THAT(plan, HasSubstr("job_history_job")) << plan;
    EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
  }
}

TEST_F(PgPlanTest, OperationBatchesSeekFromTheCursorWithoutSorting) {
  // One status of one queue after a cursor: the listing index, in its order.
  // A sort here would read every matching job at each batch.
  for (JobStatus status : {JobStatus::kPending, JobStatus::kDeadletter}) {
    JobSelection sel;
    sel.match.queue_name = "q1";
    sel.match.limit = 500;
    sel.statuses = {status};
    sel.after = JobCursor{InstantFromMicros(20100), "job-20100"};
    sql::BuiltQuery q = sql::SelectJobsAfter(sel, status);
    const std::string args =
        std::string("'") + JobStatusName(status) + "', 'q1', 20100, 'job-20100', 500";
    ExpectIndexInOrder(q.sql, args, "jobs_listing");
  }
}

TEST_F(PgPlanTest, TagFiltersUseTheGinIndex) {
  for (const char* tag : {"batch=b7", "batch"}) {
    JobFilter f;
    f.tag = tag;
    sql::BuiltQuery q = sql::ListJobs(f, false);
    std::string arg = std::string(tag) == "batch" ? "'batch'" : R"('{"batch":"b7"}')";
    std::string plan = Plan(q.sql, arg + ", 50, 0", false);
    EXPECT_THAT(plan, HasSubstr("jobs_tags")) << q.sql << "\n" << plan;
    EXPECT_THAT(plan, Not(HasSubstr("Seq Scan"))) << plan;
  }
}

}  // namespace
}  // namespace redrive::store::postgres
