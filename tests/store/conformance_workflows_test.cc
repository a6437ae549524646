// Conformance: workflows and job dependencies (core/workflow.h). A workflow
// and its jobs are created in one transaction or not at all; blocked jobs
// are never claimable; the jobs waiting for a completed job are read, with
// the statuses they wait for, in the transaction that completes it, and
// unblocked there; a workflow's status and counts are read from its jobs.
#include "core/transition.h"
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

Job Blocked(Job job) {
  job.status = JobStatus::kBlocked;
  return job;
}

Workflow MakeWorkflow(const std::string& id, Instant created = T(0)) {
  Workflow w;
  w.id = id;
  w.name = "etl " + id;
  w.description = "extract, transform, load";
  w.metadata_json = R"({"owner":"data"})";
  w.created_at = created;
  return w;
}

// Writes a workflow `wf` of `jobs` (keys "k0", "k1", ...) and `edges` in
// one committed transaction.
void CreateWorkflow(const Workflow& wf, const std::vector<Job>& jobs,
                    const std::vector<JobDependency>& edges, WriteTx& tx) {
  std::vector<WorkflowMember> members;
  for (size_t i = 0; i < jobs.size(); ++i) {
    ASSERT_TRUE(tx.InsertJob(jobs[i], CreatedEntry(jobs[i])).ok());
    members.push_back({wf.id, jobs[i].id, "k" + std::to_string(i), static_cast<int>(i)});
  }
  Status st = tx.InsertWorkflow(wf, members);
  ASSERT_TRUE(st.ok()) << st.ToString();
  Result<long long> added = tx.InsertDependencies(edges);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(*added, static_cast<long long>(edges.size()));
}

Change ApplyEvent(const Job& job, const Event& e, Instant now) {
  FixedRandom random(7);
  Result<Change> c = Apply(job, e, now, random);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : Change{};
}

// a <- b, a <- c, (b, c) <- d: a diamond; a is running under lease-a.
class Diamond {
 public:
  Job a = AsProcessing(MakeJob("wf-a"), "w1", "lease-a", T(100));
  Job b = Blocked(MakeJob("wf-b"));
  Job c = Blocked(MakeJob("wf-c", "other"));
  Job d = Blocked(MakeJob("wf-d"));
  std::vector<JobDependency> edges = {{b.id, a.id, DependencyMode::kAll},
                                      {c.id, a.id, DependencyMode::kAll},
                                      {d.id, b.id, DependencyMode::kAll},
                                      {d.id, c.id, DependencyMode::kAll}};
  std::vector<Job> jobs() const { return {a, b, c, d}; }
};

TEST_P(StoreConformanceTest, WorkflowIsCreatedWholeOrNotAtAll) {
  Diamond g;
  {
    std::unique_ptr<WriteTx> tx = BeginWrite();
    CreateWorkflow(MakeWorkflow("wf-1"), g.jobs(), g.edges, *tx);
    // Dropped without a commit: nothing of it stays.
  }
  EXPECT_EQ(BeginRead()->GetWorkflow("wf-1").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(BeginRead()->GetJob(g.a.id).status().code(), ErrorCode::kNotFound);
  EXPECT_FALSE(BeginRead()->GetDependencyState(g.d.id)->has_value());

  Write([&](WriteTx& tx) { CreateWorkflow(MakeWorkflow("wf-1"), g.jobs(), g.edges, tx); });
  Result<WorkflowView> wf = BeginRead()->GetWorkflow("wf-1");
  ASSERT_TRUE(wf.ok()) << wf.status().ToString();
  EXPECT_EQ(wf->workflow, MakeWorkflow("wf-1"));
  EXPECT_EQ(wf->counts.processing, 1);
  EXPECT_EQ(wf->counts.blocked, 3);
  EXPECT_EQ(wf->counts.total(), 4);
  EXPECT_EQ(wf->status(), WorkflowStatus::kRunning);
  EXPECT_EQ(wf->started_at, g.a.started_at);
  EXPECT_EQ(wf->finished_at, std::nullopt);
}

TEST_P(StoreConformanceTest, WorkflowJobsAreListedInDefinitionOrderWithTheirDependencies) {
  Diamond g;
  Write([&](WriteTx& tx) { CreateWorkflow(MakeWorkflow("wf-1"), g.jobs(), g.edges, tx); });
  Result<std::vector<WorkflowJobRow>> rows = BeginRead()->ListWorkflowJobs("wf-1", 10, 0);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].member, (WorkflowMember{"wf-1", g.a.id, "k0", 0}));
  EXPECT_EQ((*rows)[0].job, g.a) << DebugString((*rows)[0].job);
  EXPECT_THAT((*rows)[0].depends_on, IsEmpty());
  EXPECT_EQ((*rows)[3].member.key, "k3");
  EXPECT_THAT((*rows)[3].depends_on, ElementsAre(g.b.id, g.c.id));
  EXPECT_EQ((*rows)[3].mode, DependencyMode::kAll);
  Result<std::vector<WorkflowJobRow>> page = BeginRead()->ListWorkflowJobs("wf-1", 2, 1);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->size(), 2u);
  EXPECT_EQ((*page)[0].job.id, g.b.id);
  EXPECT_EQ((*page)[1].job.id, g.c.id);
  EXPECT_THAT(*BeginRead()->ListWorkflowJobs("no-such", 10, 0), IsEmpty());

  Result<std::optional<WorkflowMember>> member = BeginRead()->GetWorkflowMember(g.c.id);
  ASSERT_TRUE(member.ok());
  EXPECT_EQ(*member, (WorkflowMember{"wf-1", g.c.id, "k2", 2}));
  Insert({MakeJob("loner")});
  EXPECT_FALSE(BeginRead()->GetWorkflowMember("loner")->has_value());
}

TEST_P(StoreConformanceTest, BlockedJobsAreCountedListedAndNeverClaimable) {
  Job blocked = Blocked(MakeJob("blocked-1"));
  Job pending = MakeJob("pending-1", "emails", T(1));
  Insert({blocked, pending});
  StatusCounts counts = *BeginRead()->CountJobs(std::string("emails"));
  EXPECT_EQ(counts.blocked, 1);
  EXPECT_EQ(counts.pending, 1);
  JobFilter f;
  f.status = JobStatus::kBlocked;
  EXPECT_THAT(Ids(*BeginRead()->ListJobs(f, false)), ElementsAre("blocked-1"));
  Write([&](WriteTx& tx) {
    EXPECT_THAT(Ids(*tx.SelectClaimable("emails", T(10), 10)), ElementsAre("pending-1"));
  });
}

// Completing a dependency and unblocking what it freed is one transaction:
// in it the completion is marked met, the dependents are read with whether
// all they wait for is met, and a job unblocked there is claimable before
// the commit.
TEST_P(StoreConformanceTest, DependentsOfACompletedJobAreReadAndUnblockedInItsTransaction) {
  Diamond g;
  Write([&](WriteTx& tx) { CreateWorkflow(MakeWorkflow("wf-1"), g.jobs(), g.edges, tx); });
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.ApplyChange(ApplyEvent(g.a, event::Complete{"w1", "lease-a", "{}"}, T(5))).ok());
    EXPECT_EQ(*tx.MarkDependencyMet(g.a.id), 2);  // b and c wait for a
    Result<std::vector<BlockedDependent>> deps = tx.SelectBlockedDependents(g.a.id);
    ASSERT_TRUE(deps.ok()) << deps.status().ToString();
    ASSERT_EQ(deps->size(), 2u);
    EXPECT_EQ((*deps)[0].job, g.b);
    EXPECT_EQ((*deps)[1].job, g.c);
    for (const BlockedDependent& d : *deps) {
      EXPECT_EQ(d.mode, DependencyMode::kAll);
      EXPECT_TRUE(d.all_met);
      ASSERT_TRUE(tx.ApplyChange(ApplyEvent(d.job, event::Unblock{g.a.id}, T(5))).ok());
    }
    EXPECT_THAT(Ids(*tx.SelectClaimable("emails", T(5), 10)), ElementsAre(g.b.id));
    // d waits for b and c: one met is not all.
    EXPECT_EQ(*tx.MarkDependencyMet(g.b.id), 1);
    Result<std::vector<BlockedDependent>> of_b = tx.SelectBlockedDependents(g.b.id);
    ASSERT_TRUE(of_b.ok());
    ASSERT_EQ(of_b->size(), 1u);
    EXPECT_FALSE((*of_b)[0].all_met);
    EXPECT_EQ(*tx.MarkDependencyMet(g.c.id), 1);
    EXPECT_TRUE((*tx.SelectBlockedDependents(g.c.id))[0].all_met);
    // Marking again changes nothing; a job nothing waits for marks nothing.
    EXPECT_EQ(*tx.MarkDependencyMet(g.c.id), 0);
    EXPECT_EQ(*tx.MarkDependencyMet(g.d.id), 0);
  });
  EXPECT_EQ(Get(g.b.id).status, JobStatus::kPending);
  EXPECT_EQ(Get(g.c.id).status, JobStatus::kPending);
  EXPECT_EQ(Get(g.d.id).status, JobStatus::kBlocked);
  // Only blocked dependents are selected: a's are pending now.
  Write([&](WriteTx& tx) { EXPECT_THAT(*tx.SelectBlockedDependents(g.a.id), IsEmpty()); });
}

// A job read (and locked) before its completion is marked: what waits for it
// is counted whether the edge was there when it was read or was added in the
// same transaction after (PostgreSQL reads which jobs are waited for with the
// locking read, and must not trust that once an edge is added).
TEST_P(StoreConformanceTest, MarkingAJobReadInItsTransactionCountsWhatWaitsForIt) {
  Job a = AsProcessing(MakeJob("read-a"), "w1", "lease-a", T(100));
  Job b = AsProcessing(MakeJob("read-b"), "w1", "lease-b", T(100));
  Job lone = AsProcessing(MakeJob("read-lone"), "w1", "lease-l", T(100));
  Job on_a = Blocked(MakeJob("waits-a"));
  Job on_b = Blocked(MakeJob("waits-b"));
  Insert({a, b, lone, on_a, on_b});
  Write([&](WriteTx& tx) {
    ASSERT_EQ(*tx.InsertDependencies({{on_a.id, a.id, DependencyMode::kAll}}), 1);
  });
  Write([&](WriteTx& tx) {
    ASSERT_EQ(tx.GetJobs({a.id, b.id}).value().size(), 2u);
    ASSERT_TRUE(tx.GetJob(lone.id).ok());
    // b had nothing waiting for it when read; now it has.
    ASSERT_EQ(*tx.InsertDependencies({{on_b.id, b.id, DependencyMode::kAll}}), 1);
    for (const Job& j : {a, b, lone}) {
      ASSERT_TRUE(
          tx.ApplyChange(ApplyEvent(j, event::Complete{"w1", *j.lease_id, "{}"}, T(5))).ok());
    }
    EXPECT_EQ(*tx.MarkDependencyMet(a.id), 1);
    EXPECT_EQ(*tx.MarkDependencyMet(b.id), 1);
    EXPECT_EQ(*tx.MarkDependencyMet(lone.id), 0);
    EXPECT_EQ(*tx.MarkDependencyMet(a.id), 0);  // met stays met
    EXPECT_TRUE(tx.SelectBlockedDependents(a.id).value().front().all_met);
    EXPECT_TRUE(tx.SelectBlockedDependents(b.id).value().front().all_met);
  });
}

// An edge added on a job that has completed already is met from the start;
// one on a job still running is not.
TEST_P(StoreConformanceTest, AnEdgeOnACompletedJobIsMetAtInsert) {
  Job done = MakeJob("done", "emails", T(1));
  done.status = JobStatus::kCompleted;
  done.completed_at = T(2);
  Job running = MakeJob("running", "emails", T(1));
  Job late = Blocked(MakeJob("late", "emails", T(3)));
  Job later = Blocked(MakeJob("later", "emails", T(3)));
  Insert({done, running, late, later});
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertDependencies({{late.id, done.id, DependencyMode::kAll}}).ok());
    ASSERT_TRUE(tx.InsertDependencies({{later.id, done.id, DependencyMode::kAll},
                                       {later.id, running.id, DependencyMode::kAll}})
                    .ok());
    // Nothing was marked by a completion, yet late has all it needs.
    Result<std::vector<BlockedDependent>> of_done = tx.SelectBlockedDependents(done.id);
    ASSERT_TRUE(of_done.ok()) << of_done.status().ToString();
    ASSERT_EQ(of_done->size(), 2u);
    EXPECT_EQ((*of_done)[0].job.id, "late");
    EXPECT_TRUE((*of_done)[0].all_met);
    EXPECT_EQ((*of_done)[1].job.id, "later");
    EXPECT_FALSE((*of_done)[1].all_met);
  });
}

TEST_P(StoreConformanceTest, JobDependenciesListBothSidesWithStatusesAndMode) {
  Diamond g;
  Write([&](WriteTx& tx) { CreateWorkflow(MakeWorkflow("wf-1"), g.jobs(), g.edges, tx); });
  Result<JobDependencies> of_a = BeginRead()->GetJobDependencies(g.a.id, 10);
  ASSERT_TRUE(of_a.ok()) << of_a.status().ToString();
  EXPECT_THAT(of_a->dependencies, IsEmpty());
  EXPECT_THAT(of_a->dependents, ElementsAre(DependencyLink{g.b.id, "emails", JobStatus::kBlocked},
                                            DependencyLink{g.c.id, "other", JobStatus::kBlocked}));
  EXPECT_EQ(BeginRead()->GetJobDependencies(g.a.id, 1)->dependents.size(), 1u);
  Result<JobDependencies> of_d = BeginRead()->GetJobDependencies(g.d.id, 10);
  ASSERT_TRUE(of_d.ok());
  EXPECT_THAT(of_d->dependencies,
              ElementsAre(DependencyLink{g.b.id, "emails", JobStatus::kBlocked},
                          DependencyLink{g.c.id, "other", JobStatus::kBlocked}));
  EXPECT_THAT(of_d->dependents, IsEmpty());

  Result<std::optional<DependencyState>> state = BeginRead()->GetDependencyState(g.d.id);
  ASSERT_TRUE(state.ok());
  ASSERT_TRUE(state->has_value());
  EXPECT_EQ((*state)->mode, DependencyMode::kAll);
  EXPECT_EQ((*state)->statuses.size(), 2u);
  EXPECT_FALSE(BeginRead()->GetDependencyState(g.a.id)->has_value());
}

TEST_P(StoreConformanceTest, AddedDependenciesKeepOldEdgesAndTakeTheNewMode) {
  Insert({MakeJob("x"), MakeJob("y"), MakeJob("z")});
  Write([&](WriteTx& tx) {
    EXPECT_EQ(*tx.InsertDependencies({{"z", "x", DependencyMode::kAll}}), 1);
  });
  Write([&](WriteTx& tx) {
    EXPECT_EQ(*tx.InsertDependencies(
                  {{"z", "x", DependencyMode::kAny}, {"z", "y", DependencyMode::kAny}}),
              1);
  });
  Result<JobDependencies> deps = BeginRead()->GetJobDependencies("z", 10);
  ASSERT_TRUE(deps.ok());
  EXPECT_EQ(deps->mode, DependencyMode::kAny);
  EXPECT_EQ(deps->dependencies.size(), 2u);
  EXPECT_EQ((*BeginRead()->GetDependencyState("z"))->mode, DependencyMode::kAny);
}

TEST_P(StoreConformanceTest, DependsOnTransitivelyWalksTheGraphWithinABound) {
  Insert({MakeJob("c0"), MakeJob("c1"), MakeJob("c2"), MakeJob("c3")});
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertDependencies({{"c1", "c0", DependencyMode::kAll},
                                       {"c2", "c1", DependencyMode::kAll},
                                       {"c3", "c2", DependencyMode::kAll}})
                    .ok());
  });
  std::unique_ptr<ReadTx> read = BeginRead();
  EXPECT_TRUE(*read->DependsOnTransitively("c3", "c0", 100));
  EXPECT_TRUE(*read->DependsOnTransitively("c1", "c0", 100));
  EXPECT_FALSE(*read->DependsOnTransitively("c0", "c3", 100));
  EXPECT_FALSE(*read->DependsOnTransitively("c2", "c3", 100));
  EXPECT_EQ(read->DependsOnTransitively("c3", "nowhere", 2).status().code(), ErrorCode::kConflict);
}

// One workflow in each derived status; the store's status filter (SQL) and
// core's DeriveWorkflowStatus agree on every one.
TEST_P(StoreConformanceTest, WorkflowStatusIsDerivedFromItsJobsAndFilters) {
  const Instant t = T(0);
  struct Case {
    std::string id;
    std::vector<Job> jobs;
    WorkflowStatus want;
  };
  std::vector<Case> cases = {
      {"wf-pending", {MakeJob("p1"), Blocked(MakeJob("p2"))}, WorkflowStatus::kPending},
      {"wf-running", {AsCompleted(MakeJob("r1"), T(3)), MakeJob("r2")}, WorkflowStatus::kRunning},
      {"wf-completed",
       {AsCompleted(MakeJob("d1"), T(3)), AsCompleted(MakeJob("d2"), T(4))},
       WorkflowStatus::kCompleted},
      {"wf-failed",
       {AsDead(MakeJob("f1"), DeadReason::kMaxRetriesExceeded, T(5)), Blocked(MakeJob("f2"))},
       WorkflowStatus::kFailed},
      {"wf-cancelled",
       {AsCancelled(MakeJob("x1"), T(6)), AsDead(MakeJob("x2"), DeadReason::kExpired, T(6))},
       WorkflowStatus::kCancelled},
  };
  int n = 0;
  for (const Case& c : cases) {
    Write([&](WriteTx& tx) {
      CreateWorkflow(MakeWorkflow(c.id, t + std::chrono::seconds(n)), c.jobs, {}, tx);
    });
    ++n;
  }
  for (const Case& c : cases) {
    Result<WorkflowView> got = BeginRead()->GetWorkflow(c.id);
    ASSERT_TRUE(got.ok()) << c.id;
    EXPECT_EQ(got->status(), c.want) << c.id;
    WorkflowFilter f;
    f.status = c.want;
    Result<std::vector<WorkflowView>> listed = BeginRead()->ListWorkflows(f);
    ASSERT_TRUE(listed.ok()) << listed.status().ToString();
    ASSERT_EQ(listed->size(), 1u) << c.id;
    EXPECT_EQ((*listed)[0].workflow.id, c.id);
    EXPECT_EQ((*listed)[0].counts.total(), 2);
  }
  EXPECT_EQ(BeginRead()->GetWorkflow("wf-completed")->finished_at, T(4));
  EXPECT_EQ(BeginRead()->GetWorkflow("wf-running")->finished_at, std::nullopt);

  // Newest first, paged.
  WorkflowFilter page;
  page.limit = 2;
  page.offset = 1;
  std::vector<std::string> ids;
  Result<std::vector<WorkflowView>> paged = BeginRead()->ListWorkflows(page);
  ASSERT_TRUE(paged.ok()) << paged.status().ToString();
  for (const WorkflowView& v : *paged) ids.push_back(v.workflow.id);
  EXPECT_THAT(ids, ElementsAre("wf-failed", "wf-completed"));
  Result<std::vector<WorkflowView>> all = BeginRead()->ListWorkflows(WorkflowFilter{});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[0].counts.cancelled, 1);
  EXPECT_EQ((*all)[0].counts.deadletter, 1);
}

TEST_P(StoreConformanceTest, WorkflowJobsAreSelectedByStatusForCancelAndRetry) {
  Diamond g;
  Write([&](WriteTx& tx) { CreateWorkflow(MakeWorkflow("wf-1"), g.jobs(), g.edges, tx); });
  Write([&](WriteTx& tx) {
    EXPECT_THAT(Ids(*tx.SelectWorkflowJobs("wf-1", {JobStatus::kBlocked}, 10)),
                ElementsAre(g.b.id, g.c.id, g.d.id));
    EXPECT_THAT(Ids(*tx.SelectWorkflowJobs("wf-1", {JobStatus::kBlocked}, 2)),
                ElementsAre(g.b.id, g.c.id));
    EXPECT_THAT(
        Ids(*tx.SelectWorkflowJobs("wf-1", {JobStatus::kProcessing, JobStatus::kPending}, 10)),
        ElementsAre(g.a.id));
    EXPECT_THAT(*tx.SelectWorkflowJobs("wf-1", {JobStatus::kDeadletter}, 10), IsEmpty());
  });
}

// Retention removes a finished job with its edges and its membership.
TEST_P(StoreConformanceTest, DeletingAJobDropsItsEdgesAndMembership) {
  Diamond g;
  Write([&](WriteTx& tx) { CreateWorkflow(MakeWorkflow("wf-1"), g.jobs(), g.edges, tx); });
  Write([&](WriteTx& tx) { EXPECT_EQ(*tx.DeleteJobs({g.b.id}), 1); });
  EXPECT_THAT(BeginRead()->GetJobDependencies(g.d.id, 10)->dependencies,
              ElementsAre(DependencyLink{g.c.id, "other", JobStatus::kBlocked}));
  EXPECT_EQ(BeginRead()->GetWorkflow("wf-1")->counts.total(), 3);
  EXPECT_FALSE(BeginRead()->GetWorkflowMember(g.b.id)->has_value());
}

}  // namespace
}  // namespace redrive::store::testing
