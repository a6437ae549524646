// The queries that run all the time (claim, sweeps, DLQ, counts) must use
// their indexes: a full scan of `jobs` would make every claim slower as
// completed jobs pile up. EXPLAIN QUERY PLAN shows which index SQLite picks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "store/sqlite/connection.h"
#include "store/sqlite/job_sql.h"
#include "store/sqlite/sqlite_schema.h"
#include "store/sqlite/temp_dir_for_test.h"

namespace redrive::store::sqlite {
namespace {

using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

class JobSqlPlanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ConnectionOptions options;
    options.writer = true;
    auto conn = Connection::Open(dir_.File("plan.db"), options);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    conn_ = std::move(*conn);
    ASSERT_TRUE(Migrate(*conn_).ok());
  }

  // The plan's lines, one per line of text.
  std::string Plan(std::string_view query) {
    std::string text = "EXPLAIN QUERY PLAN ";
    text += query;
    auto stmt = conn_->Prepare(text);
    EXPECT_TRUE(stmt.ok()) << stmt.status().ToString();
    if (!stmt.ok()) return {};
    std::string plan;
    while (*stmt->Step()) plan += stmt->String(3) + "\n";  // column 3: detail
    return plan;
  }

  // Asserts the plan uses `index` and never scans the whole jobs table.
  void ExpectUses(std::string_view query, const std::string& index) {
    std::string plan = Plan(query);
    EXPECT_THAT(plan, HasSubstr("INDEX " + index)) << query;
    EXPECT_THAT(plan, Not(HasSubstr("SCAN jobs\n"))) << query;
  }

  TempDirForTest dir_;
  std::unique_ptr<Connection> conn_;
};

TEST_F(JobSqlPlanTest, ClaimWalksThePendingIndexInOrder) {
  ExpectUses(sql::kSelectClaimable, "jobs_claim");
  // The index already yields priority DESC, created_at: no sort step.
  EXPECT_THAT(Plan(sql::kSelectClaimable), Not(HasSubstr("TEMP B-TREE")));
}

TEST_F(JobSqlPlanTest, SweepsUseTheirPartialIndexes) {
  ExpectUses(sql::kSelectDueScheduled, "jobs_scheduled");
  ExpectUses(sql::kSelectDueScheduledInQueue, "jobs_scheduled");
  ExpectUses(sql::kSelectExpiredLeases, "job_leases_expiry");
  ExpectUses(sql::kSelectPastDeadline, "jobs_deadline");
  // A worker's jobs: a walk of the leases (the jobs processing), each job
  // then found by its seq.
  const std::string held_by = Plan(sql::kSelectHeldBy);
  EXPECT_THAT(held_by, HasSubstr("SCAN l\n"));
  EXPECT_THAT(held_by, HasSubstr("SEARCH jobs USING INTEGER PRIMARY KEY"));
  ExpectUses(sql::kSelectCompletedExpired, "jobs_completed_retention");
  ExpectUses(sql::kSelectCancelledExpired, "jobs_cancelled_retention");
  ExpectUses(sql::kSelectDeadExpired, "jobs_dlq_queue");
  for (const char* q :
       {sql::kSelectDueScheduled, sql::kSelectExpiredLeases, sql::kSelectPastDeadline,
        sql::kSelectCompletedExpired, sql::kSelectCancelledExpired, sql::kSelectDeadExpired}) {
    EXPECT_THAT(Plan(q), Not(HasSubstr("TEMP B-TREE"))) << q;
  }
}

TEST_F(JobSqlPlanTest, NextWakeTimesReadOneIndexEntry) {
  ExpectUses(sql::kNextScheduled, "jobs_scheduled");
  ExpectUses(sql::kNextLeaseExpiry, "job_leases_expiry");
  ExpectUses(sql::kNextDeadline, "jobs_deadline");
  ExpectUses(sql::kOldestDeadletter, "jobs_dlq_queue");
  // One step per waiting status, not a walk of every waiting job's entry.
  ExpectUses(sql::kOldestWaiting, "jobs_listing");
  EXPECT_THAT(Plan(sql::kOldestWaiting), Not(HasSubstr("TEMP B-TREE")));
}

TEST_F(JobSqlPlanTest, DeadLetterQueriesUseTheDlqIndexes) {
  JobFilter all;
  ExpectUses(sql::ListDeadLetters(all).sql, "jobs_dlq");
  JobFilter by_queue;
  by_queue.queue_name = "q";
  ExpectUses(sql::ListDeadLetters(by_queue).sql, "jobs_dlq_queue");
  DeadLetterSelection sel;
  ExpectUses(sql::SelectDeadLetters(sel, "").sql, "jobs_dlq");
  sel.queue_name = "q";
  sel.dead_before = InstantFromMicros(1);
  ExpectUses(sql::SelectDeadLetters(sel, "").sql, "jobs_dlq_queue");
  DeadLetterSelection by_ids;
  by_ids.job_ids = {"a"};
  std::string plan = Plan(sql::SelectDeadLetters(by_ids, "[\"a\"]").sql);
  EXPECT_THAT(plan, Not(HasSubstr("SCAN jobs\n")));
}

TEST_F(JobSqlPlanTest, DeadLetterSummaryReadsOnlyDeadJobs) {
  // The grouping reads each dead job's row (last_error is not indexed), but
  // only dead ones: the partial index bounds the work by the DLQ's size.
  JobFilter all;
  std::string plan = Plan(sql::SummarizeDeadLetters(all).sql);
  EXPECT_THAT(plan, HasSubstr("INDEX jobs_dlq")) << plan;
  EXPECT_THAT(plan, Not(HasSubstr("SCAN jobs\n"))) << plan;
  // With a queue, (queue_id, status) seeks this queue's dead jobs alone,
  // through jobs_dlq_queue or the listing index that starts with both.
  JobFilter by_queue;
  by_queue.queue_name = "q";
  by_queue.error_prefix = "gateway";
  plan = Plan(sql::SummarizeDeadLetters(by_queue).sql);
  EXPECT_THAT(plan, AnyOf(HasSubstr("INDEX jobs_dlq_queue (queue_id=?)"),
                          HasSubstr("(queue_id=? AND status=?)")))
      << plan;
  EXPECT_THAT(plan, Not(HasSubstr("SCAN jobs\n"))) << plan;
  JobFilter by_prefix;
  by_prefix.error_prefix = "gateway";
  ExpectUses(sql::ListDeadLetters(by_prefix).sql, "jobs_dlq");
  DeadLetterSelection sel;
  sel.error_prefix = "gateway";
  ExpectUses(sql::SelectDeadLetters(sel, "").sql, "jobs_dlq");
}

TEST_F(JobSqlPlanTest, FingerprintSelectionsUseTheirIndex) {
  // One class of one queue: a seek on (queue_id, error_fingerprint).
  const std::string seek = "INDEX jobs_dlq_fingerprint (queue_id=? AND error_fingerprint=?)";
  JobFilter f;
  f.queue_name = "q";
  f.fingerprint = "0123456789abcdef";
  EXPECT_THAT(Plan(sql::SummarizeDeadLetters(f).sql), HasSubstr(seek));
  EXPECT_THAT(Plan(sql::ListDeadLetters(f).sql), HasSubstr(seek));
  DeadLetterSelection sel;
  sel.queue_name = "q";
  sel.fingerprint = "0123456789abcdef";
  EXPECT_THAT(Plan(sql::SelectDeadLetters(sel, "").sql), HasSubstr(seek));
  EXPECT_THAT(Plan(sql::CountDeadLetters(sel, "").sql), HasSubstr(seek));
  // Without a queue: still only dead jobs.
  sel.queue_name.reset();
  EXPECT_THAT(Plan(sql::SelectDeadLetters(sel, "").sql), Not(HasSubstr("SCAN jobs\n")));
  // The backfill reads its own partial index: empty once done.
  ExpectUses(sql::kSelectUnfingerprinted, "jobs_unfingerprinted");
  EXPECT_THAT(Plan(sql::kSetErrorFingerprint), HasSubstr("(id=?)"));
}

TEST_F(JobSqlPlanTest, OperationBatchesSeekFromTheCursorWithoutSorting) {
  // One status of one queue after a cursor: a seek in the listing index, in
  // its order (created_at, then the rowid: seq). A sort here would read
  // every matching job at each batch.
  JobSelection sel;
  sel.match.queue_name = "q";
  sel.statuses = {JobStatus::kDeadletter, JobStatus::kPending};
  for (std::optional<JobCursor> after :
       {std::optional<JobCursor>(), std::optional(JobCursor{InstantFromMicros(1), "a", 7})}) {
    sel.after = after;
    std::string plan = Plan(sql::SelectJobsAfter(sel, JobStatus::kDeadletter, "").sql);
    EXPECT_THAT(plan, HasSubstr("INDEX jobs_listing (queue_id=? AND status=?")) << plan;
    EXPECT_THAT(plan, Not(HasSubstr("TEMP B-TREE"))) << plan;
  }
  EXPECT_THAT(Plan(sql::SelectJobsAfter(sel, JobStatus::kDeadletter, "").sql),
              HasSubstr("(queue_id=? AND status=? AND created_at>?)"));
  // With a fingerprint still the same seek (the class is checked per row).
  sel.match.fingerprint = "0123456789abcdef";
  std::string plan = Plan(sql::SelectJobsAfter(sel, JobStatus::kDeadletter, "").sql);
  EXPECT_THAT(plan, Not(HasSubstr("TEMP B-TREE"))) << plan;
  EXPECT_THAT(plan, Not(HasSubstr("SCAN jobs\n"))) << plan;
  // Without a queue: the creation index from the cursor on, in order.
  JobSelection any_queue;
  any_queue.statuses = {JobStatus::kDeadletter};
  any_queue.after = JobCursor{InstantFromMicros(1), "a", 7};
  plan = Plan(sql::SelectJobsAfter(any_queue, JobStatus::kDeadletter, "").sql);
  EXPECT_THAT(plan, HasSubstr("INDEX jobs_created (created_at>?)")) << plan;
  EXPECT_THAT(plan, Not(HasSubstr("TEMP B-TREE"))) << plan;
}

TEST_F(JobSqlPlanTest, ACursorWithoutSeqSortsOnlyTies) {
  // An operation begun before schema version 25 goes on by id: the index
  // gives created_at's order, and only the jobs of one created_at are
  // sorted ("RIGHT PART"), never every job that matches.
  JobSelection sel;
  sel.match.queue_name = "q";
  sel.statuses = {JobStatus::kDeadletter};
  sel.after = JobCursor{InstantFromMicros(1), "a"};
  std::string plan = Plan(sql::SelectJobsAfter(sel, JobStatus::kDeadletter, "").sql);
  EXPECT_THAT(plan, HasSubstr("INDEX jobs_listing (queue_id=? AND status=? AND created_at>?)"))
      << plan;
  EXPECT_THAT(plan, HasSubstr("USE TEMP B-TREE FOR RIGHT PART OF ORDER BY")) << plan;
}

TEST_F(JobSqlPlanTest, CountsReadTheCountersNotTheJobs) {
  // One queue's counters are a range of job_counts' key; all queues' are
  // the whole (small) table. Neither reads a job.
  EXPECT_THAT(Plan(sql::kCountQueue),
              HasSubstr("SEARCH job_counts USING PRIMARY KEY (queue_name=?)"));
  for (const char* q : {sql::kCountAll, sql::kCountQueue}) {
    std::string plan = Plan(q);
    EXPECT_THAT(plan, HasSubstr("job_counts")) << plan;
    EXPECT_THAT(plan, Not(HasSubstr("jobs "))) << plan;
  }
}

TEST_F(JobSqlPlanTest, ListingsUseAnIndex) {
  // In the index's order, ties included (seq): a page far down the list
  // skips the rows before it without reading them.
  JobFilter f;
  ExpectUses(sql::ListJobs(f, false).sql, "jobs_created");
  EXPECT_THAT(Plan(sql::ListJobs(f, false).sql), Not(HasSubstr("TEMP B-TREE")));
  f.queue_name = "q";
  ExpectUses(sql::ListJobs(f, false).sql, "jobs_queue_created");
  EXPECT_THAT(Plan(sql::ListJobs(f, false).sql), Not(HasSubstr("TEMP B-TREE")));
  f.status = JobStatus::kPending;
  ExpectUses(sql::ListJobs(f, false).sql, "jobs_listing");
  EXPECT_THAT(Plan(sql::ListJobs(f, false).sql), Not(HasSubstr("TEMP B-TREE")));
  JobFilter tagged;
  tagged.tag = "k=v";
  EXPECT_THAT(Plan(sql::ListJobs(tagged, false).sql), HasSubstr("job_tags_kv"));
  tagged.tag = "k";
  EXPECT_THAT(Plan(sql::ListJobs(tagged, false).sql), HasSubstr("job_tags_kv"));
}

// A queue's name is looked up once, by the unique index of queue_names,
// and its jobs found by queue_id: deleting a queue's jobs, and checking
// that none is left before its name goes, seek; neither scans jobs.
TEST_F(JobSqlPlanTest, AQueueIsFoundByTheIdOfItsName) {
  for (const char* q : {sql::kDeleteQueueJobs, sql::kForgetQueue}) {
    const std::string plan = Plan(q);
    EXPECT_THAT(plan, HasSubstr("sqlite_autoindex_queue_names_1 (name=?)")) << plan;
    EXPECT_THAT(plan, HasSubstr("jobs USING COVERING INDEX jobs_queue_created (queue_id=?)"))
        << plan;
    EXPECT_THAT(plan, Not(HasSubstr("SCAN jobs\n"))) << plan;
  }
  // Reading a job's queue is a lookup by key.
  EXPECT_THAT(Plan(sql::kGetJob), HasSubstr("SEARCH queue_names USING INTEGER PRIMARY KEY"));
}

TEST_F(JobSqlPlanTest, PointLookupsUseKeys) {
  EXPECT_THAT(Plan(sql::kGetJob), HasSubstr("USING INDEX sqlite_autoindex_jobs_1 (id=?)"));
  EXPECT_THAT(Plan(sql::kGetJobs), HasSubstr("(id=?)"));
  EXPECT_THAT(Plan(sql::kFindIdempotencyKey), HasSubstr("jobs_idempotency"));
  EXPECT_THAT(Plan(sql::kGetHistory), HasSubstr("sqlite_autoindex_jobs_1 (id=?)"));
  EXPECT_THAT(Plan(sql::kGetHistory), HasSubstr("USING PRIMARY KEY (job_seq=?)"));
  EXPECT_THAT(Plan(sql::kGetHistory), Not(HasSubstr("TEMP B-TREE")));
  EXPECT_THAT(Plan(sql::kLastHistorySegment), HasSubstr("sqlite_autoindex_jobs_1 (id=?)"));
  EXPECT_THAT(Plan(sql::kLastHistorySegment), HasSubstr("USING PRIMARY KEY (job_seq=?)"));
  EXPECT_THAT(Plan(sql::kLastHistorySegment), Not(HasSubstr("TEMP B-TREE")));
  // A change looks its job's seq up by id once; every write of it goes by
  // the seq, the guarded update's check of the lease too.
  EXPECT_THAT(Plan(sql::kGetSeq), HasSubstr("COVERING INDEX sqlite_autoindex_jobs_1 (id=?)"));
  const std::string update = Plan(sql::UpdateJobSql(kUpdatedColumns));
  EXPECT_THAT(update, HasSubstr("SEARCH jobs USING INTEGER PRIMARY KEY (rowid=?)"));
  EXPECT_THAT(update, HasSubstr("SEARCH job_leases USING INTEGER PRIMARY KEY (rowid=?)"));
  for (std::string_view write :
       {sql::UpdatePayloadsSql(kPayloadsColumns), sql::UpdateLeaseSql(kLeaseColumns),
        std::string_view(sql::kDeleteLease)}) {
    EXPECT_THAT(Plan(write), HasSubstr("INTEGER PRIMARY KEY (rowid=?)")) << write;
  }
}

}  // namespace
}  // namespace redrive::store::sqlite
