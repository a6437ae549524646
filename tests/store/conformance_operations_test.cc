// Conformance: bulk operations (core/operation.h). The operations table keeps
// what it is given, counts unfinished operations against a limit, selects due
// ones; the batched selection walks jobs in (created_at, id) order after a cursor, with
// the DLQ selector's filters, over the statuses an action selects.
#include <algorithm>

#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

OperationRecord MakeOperation(const std::string& id, Instant created) {
  OperationRecord rec;
  Operation& op = rec.operation;
  op.id = id;
  op.action = OperationAction::kRetry;
  op.state = OperationState::kQueued;
  op.selector_json = R"({"queue_name":"emails"})";
  op.statuses = {JobStatus::kDeadletter};
  op.rate_per_second = 12.5;
  op.budget = RetryBudget{RetryBudget::Kind::kExtend, 3};
  op.target_queue = "emails-slow";
  op.reason = "INC-4411: gateway fixed";
  op.created_by = "oncall";
  op.matched = 7;
  op.created_at = op.updated_at = created;
  rec.selection.queue_name = "emails";
  rec.selection.dead_reason = DeadReason::kMaxRetriesExceeded;
  rec.selection.tag = "tenant=acme";
  rec.selection.error_prefix = "upstream 504";
  rec.selection.dead_before = T(100);
  return rec;
}

TEST_P(StoreConformanceTest, AnOperationIsStoredAsGivenAndUpdated) {
  OperationRecord rec = MakeOperation("op-1", T(10));
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertOperation(rec, 10).ok()); });
  Result<OperationRecord> got = BeginRead()->GetOperation("op-1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  const Operation& op = got->operation;
  EXPECT_EQ(op.action, OperationAction::kRetry);
  EXPECT_EQ(op.state, OperationState::kQueued);
  EXPECT_EQ(op.selector_json, R"({"queue_name":"emails"})");
  EXPECT_THAT(op.statuses, ElementsAre(JobStatus::kDeadletter));
  EXPECT_EQ(op.rate_per_second, 12.5);
  EXPECT_EQ(op.budget, (RetryBudget{RetryBudget::Kind::kExtend, 3}));
  EXPECT_EQ(op.target_queue, "emails-slow");
  EXPECT_EQ(op.reason, "INC-4411: gateway fixed");
  EXPECT_EQ(op.created_by, "oncall");
  EXPECT_EQ(op.matched, 7);
  EXPECT_EQ(op.created_at, T(10));
  EXPECT_FALSE(op.started_at.has_value());
  EXPECT_EQ(got->selection.queue_name, "emails");
  EXPECT_EQ(got->selection.dead_reason, DeadReason::kMaxRetriesExceeded);
  EXPECT_EQ(got->selection.tag, "tenant=acme");
  EXPECT_EQ(got->selection.error_prefix, "upstream 504");
  EXPECT_EQ(got->selection.dead_before, T(100));
  EXPECT_THAT(got->selection.job_ids, IsEmpty());

  Operation next = op;
  next.state = OperationState::kRunning;
  next.matched = 1200;
  next.done = 500;
  next.failed = 2;
  next.cursor = "1800000000000000/job-0500";
  next.started_at = T(11);
  next.next_batch_at = T(12);
  next.updated_at = T(11);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateOperation(next).ok()); });
  got = BeginRead()->GetOperation("op-1");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->operation.state, OperationState::kRunning);
  EXPECT_EQ(got->operation.done, 500);
  EXPECT_EQ(got->operation.failed, 2);
  EXPECT_EQ(got->operation.matched, 1200);
  EXPECT_EQ(got->operation.cursor, "1800000000000000/job-0500");
  EXPECT_EQ(got->operation.started_at, T(11));
  EXPECT_EQ(got->operation.next_batch_at, T(12));

  EXPECT_EQ(BeginRead()->GetOperation("nope").status().code(), ErrorCode::kNotFound);
  Operation unknown = next;
  unknown.id = "nope";
  auto tx = BeginWrite();
  EXPECT_EQ(tx->UpdateOperation(unknown).code(), ErrorCode::kNotFound);
}

TEST_P(StoreConformanceTest, OperationJobIdsAndUnsetFieldsRoundTrip) {
  OperationRecord rec = MakeOperation("op-ids", T(0));
  rec.selection = DeadLetterSelection{};
  rec.selection.job_ids = {"a", "b", "c"};
  rec.operation.action = OperationAction::kCancel;
  rec.operation.statuses = {JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing};
  rec.operation.rate_per_second.reset();
  rec.operation.budget.reset();
  rec.operation.target_queue.reset();
  rec.operation.reason.reset();
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertOperation(rec, 10).ok()); });
  Result<OperationRecord> got = BeginRead()->GetOperation("op-ids");
  ASSERT_TRUE(got.ok());
  EXPECT_THAT(got->selection.job_ids, ElementsAre("a", "b", "c"));
  EXPECT_FALSE(got->selection.queue_name.has_value());
  EXPECT_EQ(got->operation.action, OperationAction::kCancel);
  EXPECT_THAT(got->operation.statuses,
              ElementsAre(JobStatus::kPending, JobStatus::kScheduled, JobStatus::kProcessing));
  EXPECT_FALSE(got->operation.rate_per_second.has_value());
  EXPECT_FALSE(got->operation.budget.has_value());
  EXPECT_FALSE(got->operation.reason.has_value());
}

TEST_P(StoreConformanceTest, UnfinishedOperationsAreLimitedAndListedNewestFirst) {
  Write([&](WriteTx& tx) {
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(tx.InsertOperation(MakeOperation("op-" + std::to_string(i), T(i)), 3).ok());
    }
  });
  {
    auto tx = BeginWrite();
    EXPECT_EQ(tx->InsertOperation(MakeOperation("op-x", T(9)), 3).code(), ErrorCode::kConflict);
  }
  // A finished one no longer counts.
  Result<OperationRecord> first = BeginRead()->GetOperation("op-0");
  ASSERT_TRUE(first.ok());
  first->operation.state = OperationState::kCompleted;
  first->operation.finished_at = T(5);
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.UpdateOperation(first->operation).ok());
    ASSERT_TRUE(tx.InsertOperation(MakeOperation("op-3", T(3)), 3).ok());
  });
  auto listed = BeginRead()->ListOperations(10, 0);
  ASSERT_TRUE(listed.ok());
  std::vector<std::string> ids;
  for (const OperationRecord& r : *listed) ids.push_back(r.operation.id);
  EXPECT_THAT(ids, ElementsAre("op-3", "op-2", "op-1", "op-0"));
  listed = BeginRead()->ListOperations(2, 1);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_EQ((*listed)[0].operation.id, "op-2");
}

TEST_P(StoreConformanceTest, DueOperationsAreTheUnfinishedOnesWhoseBatchIsDue) {
  OperationRecord queued = MakeOperation("op-queued", T(0));
  OperationRecord paced = MakeOperation("op-paced", T(1));
  paced.operation.state = OperationState::kRunning;
  paced.operation.next_batch_at = T(50);
  OperationRecord done = MakeOperation("op-done", T(2));
  done.operation.state = OperationState::kCancelled;
  Write([&](WriteTx& tx) {
    for (const auto* r : {&queued, &paced, &done}) ASSERT_TRUE(tx.InsertOperation(*r, 10).ok());
  });
  auto due_ids = [&](Instant now) {
    auto tx = BeginWrite();
    auto due = tx->SelectDueOperations(now, 10);
    EXPECT_TRUE(due.ok());
    std::vector<std::string> ids;
    for (const OperationRecord& r : *due) ids.push_back(r.operation.id);
    return ids;
  };
  EXPECT_THAT(due_ids(T(10)), ElementsAre("op-queued"));
  EXPECT_THAT(due_ids(T(50)), ElementsAre("op-queued", "op-paced"));
  Result<std::optional<Instant>> next = BeginRead()->NextOperationDue();
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, T(0));
}

TEST_P(StoreConformanceTest, SelectJobsAfterWalksTheSelectionInCreationOrderFromTheCursor) {
  // Created in the reverse of id order: the walk follows created_at, then id.
  std::vector<Job> jobs;
  for (int i = 0; i < 7; ++i) {
    char id[16];
    std::snprintf(id, sizeof(id), "job-%02d", i);
    Job j = MakeJob(id, i % 2 == 0 ? "emails" : "sms", T(10 - i));
    jobs.push_back(AsDead(j, DeadReason::kMaxRetriesExceeded, T(10 + i)));
  }
  jobs.push_back(MakeJob("job-pending", "emails", T(0)));
  Insert(jobs);
  JobSelection sel;
  sel.match.queue_name = "emails";
  sel.match.limit = 2;
  sel.statuses = {JobStatus::kDeadletter};
  auto tx = BeginWrite();
  auto batch = tx->SelectJobsAfter(sel);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_THAT(Ids(*batch), ElementsAre("job-06", "job-04"));
  EXPECT_EQ(*tx->CountSelectedJobs(sel), 4);
  sel.after = batch->next;
  batch = tx->SelectJobsAfter(sel);
  ASSERT_TRUE(batch.ok());
  EXPECT_THAT(Ids(*batch), ElementsAre("job-02", "job-00"));
  EXPECT_EQ(*tx->CountSelectedJobs(sel), 2);
  EXPECT_FALSE(batch->jobs[0].payload.empty());  // with payload
  sel.after = batch->next;
  batch = tx->SelectJobsAfter(sel);
  ASSERT_TRUE(batch.ok());
  EXPECT_THAT(batch->jobs, IsEmpty());
  EXPECT_EQ(*tx->CountSelectedJobs(sel), 0);

  // Other statuses, and the selector's dead_before and job_ids.
  JobSelection waiting;
  waiting.match.queue_name = "emails";
  waiting.match.limit = 10;
  waiting.statuses = {JobStatus::kPending, JobStatus::kScheduled};
  EXPECT_THAT(Ids(*tx->SelectJobsAfter(waiting)), ElementsAre("job-pending"));
  JobSelection old;
  old.match.dead_before = T(13);
  old.match.limit = 10;
  old.statuses = {JobStatus::kDeadletter};
  EXPECT_THAT(Ids(*tx->SelectJobsAfter(old)), ElementsAre("job-02", "job-01", "job-00"));
  JobSelection named;
  named.match.job_ids = {"job-05", "job-01", "job-pending"};
  named.match.limit = 10;
  named.statuses = {JobStatus::kDeadletter};
  EXPECT_THAT(Ids(*tx->SelectJobsAfter(named)), ElementsAre("job-05", "job-01"));
  EXPECT_EQ(*tx->CountSelectedJobs(named), 2);
}

TEST_P(StoreConformanceTest, SelectJobsAfterMergesStatusesAndBreaksTiesById) {
  // Pending and scheduled jobs interleaved in time, two created in the same
  // microsecond: one batch takes the first of both statuses together.
  Insert({MakeJob("p-b", "emails", T(1)), AsScheduled(MakeJob("s-a", "emails", T(1)), T(100)),
          AsScheduled(MakeJob("s-c", "emails", T(2)), T(100)), MakeJob("p-d", "emails", T(3)),
          AsScheduled(MakeJob("s-e", "emails", T(4)), T(100)), MakeJob("p-other", "sms", T(0))});
  JobSelection sel;
  sel.match.queue_name = "emails";
  sel.match.limit = 3;
  sel.statuses = {JobStatus::kPending, JobStatus::kScheduled};
  auto tx = BeginWrite();
  auto batch = tx->SelectJobsAfter(sel);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  EXPECT_THAT(Ids(*batch), ElementsAre("p-b", "s-a", "s-c"));
  EXPECT_EQ(*tx->CountSelectedJobs(sel), 5);
  // One job a batch: the next cursors step through the microsecond's two.
  sel.match.limit = 1;
  std::vector<std::string> one_by_one;
  for (int i = 0; i < 3; ++i) {
    batch = tx->SelectJobsAfter(sel);
    ASSERT_TRUE(batch.ok() && batch->next);
    one_by_one.push_back(batch->jobs.at(0).id);
    sel.after = batch->next;
  }
  EXPECT_THAT(one_by_one, ElementsAre("p-b", "s-a", "s-c"));
  sel.match.limit = 3;
  // A cursor between the two jobs of one microsecond, without a seq (as
  // written before SQLite's schema version 25: SQLite walks it by id).
  sel.after = JobCursor{T(1), "p-b"};
  batch = tx->SelectJobsAfter(sel);
  ASSERT_TRUE(batch.ok());
  EXPECT_THAT(Ids(*batch), ElementsAre("s-a", "s-c", "p-d"));
  EXPECT_EQ(*tx->CountSelectedJobs(sel), 4);
  sel.after = JobCursor{T(1), "p-a"};
  EXPECT_THAT(Ids(*tx->SelectJobsAfter(sel)), ElementsAre("p-b", "s-a", "s-c"));
}

// A batch boundary inside a group of jobs created in one microsecond and
// inserted out of id order: the walk takes each exactly once, the group
// between the jobs created before and after it (in the store's tie order:
// insertion on SQLite, id on PostgreSQL), with or without a queue in the
// selector, and an empty batch has no next cursor.
TEST_P(StoreConformanceTest, SelectJobsAfterTakesEachOfAGroupOfTiesOnce) {
  std::vector<Job> jobs;
  for (const char* id : {"t3", "t0", "t4", "t1", "t2"}) {
    jobs.push_back(AsDead(MakeJob(id, "emails", T(5)), DeadReason::kMaxRetriesExceeded, T(9)));
  }
  jobs.push_back(AsDead(MakeJob("u", "emails", T(6)), DeadReason::kMaxRetriesExceeded, T(9)));
  jobs.push_back(AsDead(MakeJob("v", "emails", T(4)), DeadReason::kMaxRetriesExceeded, T(9)));
  Insert(jobs);
  auto tx = BeginWrite();
  for (bool with_queue : {true, false}) {
    JobSelection sel;
    if (with_queue) sel.match.queue_name = "emails";
    sel.match.limit = 2;
    sel.statuses = {JobStatus::kDeadletter};
    std::vector<std::string> walked;
    for (int batches = 0; batches < 10; ++batches) {
      auto batch = tx->SelectJobsAfter(sel);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      if (batch->jobs.empty()) {
        EXPECT_FALSE(batch->next.has_value());
        break;
      }
      for (const Job& j : batch->jobs) walked.push_back(j.id);
      ASSERT_TRUE(batch->next.has_value());
      EXPECT_EQ(batch->next->id, batch->jobs.back().id);
      sel.after = batch->next;
    }
    ASSERT_EQ(walked.size(), 7u) << with_queue;
    EXPECT_EQ(walked.front(), "v");
    EXPECT_EQ(walked.back(), "u");
    EXPECT_THAT(walked, UnorderedElementsAre("v", "t0", "t1", "t2", "t3", "t4", "u"));

    // A walk from a cursor without a seq (an operation begun before SQLite's
    // schema version 25) goes on by id on every store, to the end.
    sel.after = JobCursor{T(4), "v"};
    walked.clear();
    for (int batches = 0; batches < 10; ++batches) {
      auto batch = tx->SelectJobsAfter(sel);
      ASSERT_TRUE(batch.ok()) << batch.status().ToString();
      if (batch->jobs.empty()) break;
      for (const Job& j : batch->jobs) walked.push_back(j.id);
      sel.after = batch->next;
    }
    EXPECT_THAT(walked, ElementsAre("t0", "t1", "t2", "t3", "t4", "u")) << with_queue;
  }
}

// A move is stored like any action (the schema's action CHECK takes it).
TEST_P(StoreConformanceTest, AMoveOperationIsStored) {
  OperationRecord rec = MakeOperation("op-move", T(0));
  rec.operation.action = OperationAction::kMove;
  rec.operation.statuses = ActionStatuses(OperationAction::kMove);
  rec.operation.budget.reset();
  rec.selection = DeadLetterSelection{};
  rec.selection.queue_name = "emails";
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertOperation(rec, 10).ok()); });
  Result<OperationRecord> got = BeginRead()->GetOperation("op-move");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->operation.action, OperationAction::kMove);
  EXPECT_EQ(got->operation.statuses, ActionStatuses(OperationAction::kMove));
  EXPECT_EQ(got->operation.target_queue, "emails-slow");
}

// Retention: finished operations that finished before the cut-off go,
// oldest first and at most `limit`; unfinished ones never do, however old.
TEST_P(StoreConformanceTest, FinishedOperationsAreDeletedOldestFirstAndUnfinishedOnesNever) {
  struct Row {
    const char* id;
    OperationState state;
    std::optional<Instant> finished;
  };
  const Row rows[] = {
      {"op-a", OperationState::kCompleted, T(10)}, {"op-b", OperationState::kCancelled, T(20)},
      {"op-c", OperationState::kFailed, T(30)},    {"op-d", OperationState::kCompleted, T(200)},
      {"op-e", OperationState::kRunning, {}},      {"op-f", OperationState::kQueued, {}},
  };
  Write([&](WriteTx& tx) {
    for (const Row& row : rows) {
      OperationRecord rec = MakeOperation(row.id, T(0));
      rec.operation.state = row.state;
      rec.operation.finished_at = row.finished;
      ASSERT_TRUE(tx.InsertOperation(rec, 10).ok()) << row.id;
    }
  });
  auto ids = [&] {
    std::vector<std::string> out;
    Result<std::vector<OperationRecord>> all = BeginRead()->ListOperations(100, 0);
    EXPECT_TRUE(all.ok());
    if (all.ok()) {
      for (const OperationRecord& rec : *all) out.push_back(rec.operation.id);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  Write([&](WriteTx& tx) {
    Result<long long> n = tx.DeleteFinishedOperationsBefore(T(100), 2);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 2);
  });
  EXPECT_THAT(ids(), ElementsAre("op-c", "op-d", "op-e", "op-f"));
  Write([&](WriteTx& tx) {
    Result<long long> n = tx.DeleteFinishedOperationsBefore(T(100), 10);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 1);
  });
  EXPECT_THAT(ids(), ElementsAre("op-d", "op-e", "op-f"));
  Write([&](WriteTx& tx) {
    Result<long long> n = tx.DeleteFinishedOperationsBefore(T(1000000), 10);
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(*n, 1);
  });
  EXPECT_THAT(ids(), ElementsAre("op-e", "op-f"));
}

}  // namespace
}  // namespace redrive::store::testing
