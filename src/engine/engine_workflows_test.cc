// Workflows under a manual clock: a diamond runs in order, each dependent
// claimable exactly when its condition holds (released in the completing
// transaction, no sweep); a dead-lettered dependency blocks its dependents
// and fails the workflow; retry (of the workflow, or a DLQ redrive of the
// one dead job) lets them proceed; cancel; atomic creation; added
// dependencies and parent_job_id; the webhooks workflow.completed/failed.
#include <gmock/gmock.h>

#include "engine/engine_test_util.h"

namespace redrive::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class WorkflowEngineTest : public EngineTest {
 protected:
  static WorkflowJobParams JobDef(const std::string& key, std::vector<std::string> deps = {},
                                  DependencyMode mode = DependencyMode::kAll,
                                  const std::string& queue = "etl") {
    WorkflowJobParams j;
    j.key = key;
    j.job.queue_name = queue;
    j.job.payload_json = R"({"step":")" + key + "\"}";
    j.job.max_retries = 0;
    j.depends_on = std::move(deps);
    j.mode = mode;
    return j;
  }
  Result<CreateWorkflowResult> Create(std::vector<WorkflowJobParams> jobs) {
    CreateWorkflowParams p;
    p.name = "nightly etl";
    p.jobs = std::move(jobs);
    return Call<CreateWorkflowResult>(&Engine::CreateWorkflow, std::move(p));
  }
  // a -> (b, c) -> d.
  CreateWorkflowResult Diamond(DependencyMode d_mode = DependencyMode::kAll) {
    auto r = Create(
        {JobDef("a"), JobDef("b", {"a"}), JobDef("c", {"a"}), JobDef("d", {"b", "c"}, d_mode)});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    for (const WorkflowJobId& j : r->job_ids) ids_[j.key] = j.job_id;
    return *r;
  }
  WorkflowView Workflow(const std::string& id) {
    auto r = Call<WorkflowView>(&Engine::GetWorkflow, std::string(id));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : WorkflowView{};
  }
  // Claims one job of "etl" and completes it; returns its key.
  std::string RunOne() {
    std::vector<Job> jobs = Claim("etl");
    if (jobs.empty()) return "";
    EXPECT_TRUE(
        CallStatus(&Engine::Complete, CompleteParams{jobs[0].id, "w1", jobs[0].lease_id, "{}", {}})
            .ok());
    return KeyOf(jobs[0].id);
  }
  // Claims one job of "etl" and fails it for good (max_retries 0).
  std::string FailOne() {
    std::vector<Job> jobs = Claim("etl");
    if (jobs.empty()) return "";
    auto r =
        Call<FailResult>(&Engine::Fail, FailParams{jobs[0].id, "w1", jobs[0].lease_id, "boom"});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return KeyOf(jobs[0].id);
  }
  std::string KeyOf(const std::string& id) {
    for (const auto& [k, v] : ids_) {
      if (v == id) return k;
    }
    return id;
  }
  JobStatus StatusOf(const std::string& key) { return Get(ids_.at(key)).status; }

  std::map<std::string, std::string> ids_;
};

TEST_F(WorkflowEngineTest, ADiamondRunsInDependencyOrder) {
  CreateWorkflowResult created = Diamond();
  EXPECT_EQ(created.workflow.status(), WorkflowStatus::kPending);
  EXPECT_EQ(created.workflow.counts.pending, 1);
  EXPECT_EQ(created.workflow.counts.blocked, 3);
  EXPECT_EQ(StatusOf("b"), JobStatus::kBlocked);

  EXPECT_EQ(RunOne(), "a");
  // b and c were unblocked by a's completion, d still waits for both.
  EXPECT_EQ(StatusOf("b"), JobStatus::kPending);
  EXPECT_EQ(StatusOf("c"), JobStatus::kPending);
  EXPECT_EQ(StatusOf("d"), JobStatus::kBlocked);
  EXPECT_EQ(Workflow(created.workflow_id).status(), WorkflowStatus::kRunning);
  const std::string first = RunOne();
  EXPECT_THAT(first, ::testing::AnyOf("b", "c"));
  EXPECT_EQ(StatusOf("d"), JobStatus::kBlocked);
  EXPECT_TRUE(Claim("etl").size() == 1);  // the other middle job, held
  EXPECT_TRUE(Claim("etl").empty());      // d is not claimable yet
}

TEST_F(WorkflowEngineTest, TheLastDependencyCompletingMakesTheJobClaimableAtOnce) {
  CreateWorkflowResult created = Diamond();
  EXPECT_EQ(RunOne(), "a");
  RunOne();
  RunOne();
  EXPECT_EQ(StatusOf("d"), JobStatus::kPending);
  EXPECT_EQ(RunOne(), "d");
  WorkflowView w = Workflow(created.workflow_id);
  EXPECT_EQ(w.status(), WorkflowStatus::kCompleted);
  EXPECT_EQ(w.counts.completed, 4);
  EXPECT_EQ(w.finished_at, clock_.Now());
  // The history says why d became pending.
  auto history = (*store_->BeginRead())->GetHistory(ids_["d"]);
  ASSERT_TRUE(history.ok());
  std::vector<std::string> events;
  for (const HistoryEntry& h : *history) events.push_back(h.event_type);
  EXPECT_THAT(events, ElementsAre("created", "unblocked", "processing", "completed"));
}

TEST_F(WorkflowEngineTest, AnyModeRunsAfterTheFirstDependency) {
  Diamond(DependencyMode::kAny);
  EXPECT_EQ(RunOne(), "a");
  RunOne();
  EXPECT_EQ(StatusOf("d"), JobStatus::kPending);
}

TEST_F(WorkflowEngineTest, ADeadDependencyBlocksItsDependentsAndFailsTheWorkflow) {
  CreateWorkflowResult created = Diamond();
  EXPECT_EQ(FailOne(), "a");
  EXPECT_EQ(StatusOf("a"), JobStatus::kDeadletter);
  EXPECT_EQ(StatusOf("b"), JobStatus::kBlocked);
  EXPECT_TRUE(Claim("etl").empty());
  WorkflowView w = Workflow(created.workflow_id);
  EXPECT_EQ(w.status(), WorkflowStatus::kFailed);
  EXPECT_EQ(FailedJobs(w.counts), 1);
  auto deps = Call<JobDependenciesView>(&Engine::GetJobDependencies, ids_["b"], QueueScope{});
  ASSERT_TRUE(deps.ok());
  EXPECT_EQ(deps->readiness, Readiness::kBlockedForever);
  EXPECT_FALSE(deps->dependencies_met);
}

// One job of the workflow cancelled by itself (DELETE /jobs/{id}), not the
// whole workflow: its dependent never runs, the others go on, and the
// workflow reads cancelled; a retry of the workflow runs it after all.
TEST_F(WorkflowEngineTest, ACancelledDependencyBlocksItsDependentAndCancelsTheWorkflow) {
  CreateWorkflowResult created = Diamond();
  EXPECT_EQ(RunOne(), "a");
  ASSERT_TRUE(CallStatus(&Engine::Cancel, ids_["b"]).ok());
  EXPECT_EQ(StatusOf("b"), JobStatus::kCancelled);
  EXPECT_EQ(RunOne(), "c");
  EXPECT_TRUE(Claim("etl").empty());  // d waits for b, which will never complete
  EXPECT_EQ(StatusOf("d"), JobStatus::kBlocked);
  auto deps = Call<JobDependenciesView>(&Engine::GetJobDependencies, ids_["d"], QueueScope{});
  ASSERT_TRUE(deps.ok());
  EXPECT_EQ(deps->readiness, Readiness::kBlockedForever);
  WorkflowView w = Workflow(created.workflow_id);
  EXPECT_EQ(w.status(), WorkflowStatus::kCancelled);
  EXPECT_EQ(w.counts.cancelled, 1);
  EXPECT_EQ(w.counts.completed, 2);

  ASSERT_TRUE(Call<WorkflowView>(&Engine::RetryWorkflow, created.workflow_id).ok());
  EXPECT_EQ(RunOne(), "b");
  EXPECT_EQ(RunOne(), "d");
  EXPECT_EQ(Workflow(created.workflow_id).status(), WorkflowStatus::kCompleted);
}

TEST_F(WorkflowEngineTest, RetryRedrivesTheFailedJobsAndTheBlockedOnesProceed) {
  CreateWorkflowResult created = Diamond();
  EXPECT_EQ(FailOne(), "a");
  auto retried = Call<WorkflowView>(&Engine::RetryWorkflow, created.workflow_id);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->status(), WorkflowStatus::kPending);
  EXPECT_EQ(StatusOf("a"), JobStatus::kPending);
  EXPECT_EQ(RunOne(), "a");
  RunOne();
  RunOne();
  EXPECT_EQ(RunOne(), "d");
  EXPECT_EQ(Workflow(created.workflow_id).status(), WorkflowStatus::kCompleted);
  // Nothing failed is left to retry.
  EXPECT_EQ(Call<WorkflowView>(&Engine::RetryWorkflow, created.workflow_id).status().code(),
            ErrorCode::kConflict);
}

TEST_F(WorkflowEngineTest, ADlqRedriveOfTheDeadJobLetsItsDependentsProceed) {
  CreateWorkflowResult created = Diamond();
  EXPECT_EQ(FailOne(), "a");
  DlqRetryParams p;
  p.job_ids = {ids_["a"]};
  ASSERT_TRUE(Call<DlqRetryResult>(&Engine::DlqRetry, std::move(p)).ok());
  EXPECT_EQ(RunOne(), "a");
  EXPECT_EQ(StatusOf("b"), JobStatus::kPending);
  EXPECT_EQ(StatusOf("c"), JobStatus::kPending);
}

TEST_F(WorkflowEngineTest, CancelCancelsEveryUnfinishedJobAndRetryResumesIt) {
  CreateWorkflowResult created = Diamond();
  EXPECT_EQ(RunOne(), "a");
  std::vector<Job> held = Claim("etl");  // b or c, running
  ASSERT_EQ(held.size(), 1u);
  auto cancelled = Call<WorkflowView>(&Engine::CancelWorkflow, created.workflow_id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status().ToString();
  EXPECT_EQ(cancelled->status(), WorkflowStatus::kCancelled);
  EXPECT_EQ(cancelled->counts.cancelled, 3);
  EXPECT_EQ(cancelled->counts.completed, 1);
  // The running job went through the cancel path: its worker lost it.
  EXPECT_EQ(
      CallStatus(&Engine::Complete, CompleteParams{held[0].id, "w1", held[0].lease_id, "{}", {}})
          .code(),
      ErrorCode::kLeaseExpired);
  EXPECT_EQ(Call<WorkflowView>(&Engine::CancelWorkflow, created.workflow_id).status().code(),
            ErrorCode::kConflict);

  // Retry: b and c (a completed) run again; d waits for them, blocked.
  auto retried = Call<WorkflowView>(&Engine::RetryWorkflow, created.workflow_id);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(StatusOf("b"), JobStatus::kPending);
  EXPECT_EQ(StatusOf("c"), JobStatus::kPending);
  EXPECT_EQ(StatusOf("d"), JobStatus::kBlocked);
  RunOne();
  RunOne();
  EXPECT_EQ(RunOne(), "d");
}

TEST_F(WorkflowEngineTest, CreationIsAtomicAndRefusesBadGraphsNamingTheKey) {
  auto cycle = Create({JobDef("a", {"b"}), JobDef("b", {"a"})});
  EXPECT_EQ(cycle.status().code(), ErrorCode::kValidation);
  EXPECT_THAT(cycle.status().message(), ::testing::HasSubstr("cycle"));
  auto unknown = Create({JobDef("a", {"zz"})});
  EXPECT_EQ(unknown.status().field(), "jobs[0].depends_on[0]");
  // A job refused by its queue (disabled) refuses the whole workflow.
  QueueConfigPatch off;
  off.enabled = false;
  Enqueue("closed");
  ASSERT_TRUE(Call<QueueConfig>(&Engine::ConfigureQueue, std::string("closed"), off).ok());
  auto refused = Create({JobDef("a"), JobDef("b", {"a"}, DependencyMode::kAll, "closed")});
  EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(refused.status().field(), "jobs[1]");
  auto none = Call<std::vector<WorkflowView>>(&Engine::ListWorkflows, ListWorkflowsParams{});
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(*none, IsEmpty());
  store::JobFilter f;
  f.queue_name = "etl";
  EXPECT_THAT(*(*store_->BeginRead())->ListJobs(f, false), IsEmpty());
}

TEST_F(WorkflowEngineTest, WorkflowJobsAreListedAndReadOneByOne) {
  CreateWorkflowResult created = Diamond();
  auto jobs =
      Call<std::vector<WorkflowJobRow>>(&Engine::ListWorkflowJobs, created.workflow_id, 100, 0);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 4u);
  EXPECT_EQ((*jobs)[3].member.key, "d");
  EXPECT_THAT((*jobs)[3].depends_on, ::testing::UnorderedElementsAre(ids_["b"], ids_["c"]));
  auto one = Call<WorkflowJobRow>(&Engine::GetWorkflowJob, created.workflow_id, ids_["b"]);
  ASSERT_TRUE(one.ok());
  EXPECT_THAT(one->depends_on, ElementsAre(ids_["a"]));
  EXPECT_EQ(
      Call<WorkflowJobRow>(&Engine::GetWorkflowJob, std::string("nope"), ids_["b"]).status().code(),
      ErrorCode::kNotFound);
  EXPECT_EQ(
      Call<std::vector<WorkflowJobRow>>(&Engine::ListWorkflowJobs, std::string("nope"), 100, 0)
          .status()
          .code(),
      ErrorCode::kNotFound);
}

TEST_F(WorkflowEngineTest, AddedDependenciesBlockAPendingJobAndRefuseCycles) {
  const std::string first = Enqueue("etl");
  const std::string second = Enqueue("etl");
  AddDependenciesParams p;
  p.job_id = second;
  p.depends_on = {first};
  auto added = Call<AddDependenciesResult>(&Engine::AddJobDependencies, p);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(added->added, 1);
  EXPECT_FALSE(added->dependencies_met);
  EXPECT_EQ(added->status, JobStatus::kBlocked);
  // first waiting for second would close a cycle.
  AddDependenciesParams back;
  back.job_id = first;
  back.depends_on = {second};
  EXPECT_EQ(Call<AddDependenciesResult>(&Engine::AddJobDependencies, back).status().field(),
            "depends_on[0]");
  AddDependenciesParams self;
  self.job_id = first;
  self.depends_on = {first};
  EXPECT_EQ(Call<AddDependenciesResult>(&Engine::AddJobDependencies, self).status().code(),
            ErrorCode::kValidation);
  AddDependenciesParams missing;
  missing.job_id = first;
  missing.depends_on = {"no-such-job"};
  EXPECT_EQ(Call<AddDependenciesResult>(&Engine::AddJobDependencies, missing).status().code(),
            ErrorCode::kNotFound);
  // Completing first releases second.
  std::vector<Job> jobs = Claim("etl");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, first);
  ASSERT_TRUE(
      CallStatus(&Engine::Complete, CompleteParams{first, "w1", jobs[0].lease_id, "{}", {}}).ok());
  EXPECT_EQ(Get(second).status, JobStatus::kPending);
  // A job that ran takes no dependency.
  AddDependenciesParams late;
  late.job_id = first;
  late.depends_on = {second};
  EXPECT_EQ(Call<AddDependenciesResult>(&Engine::AddJobDependencies, late).status().code(),
            ErrorCode::kConflict);
}

TEST_F(WorkflowEngineTest, ParentJobIdMakesAJobWaitForItsParent) {
  const std::string parent = Enqueue("etl");
  EnqueueParams child;
  child.queue_name = "etl";
  child.payload_json = "{}";
  auto r = Call<EnqueueResult>(&Engine::EnqueueAfter, child, std::vector<std::string>{parent},
                               std::string("parent_job_id"), QueueScope{});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Get(r->id).status, JobStatus::kBlocked);
  auto missing = Call<EnqueueResult>(&Engine::EnqueueAfter, child, std::vector<std::string>{"nope"},
                                     std::string("parent_job_id"), QueueScope{});
  EXPECT_EQ(missing.status().field(), "parent_job_id");
  std::vector<Job> jobs = Claim("etl");
  ASSERT_EQ(jobs.size(), 1u);
  ASSERT_TRUE(
      CallStatus(&Engine::Complete, CompleteParams{parent, "w1", jobs[0].lease_id, "{}", {}}).ok());
  EXPECT_EQ(Get(r->id).status, JobStatus::kPending);
  // A completed parent: the child is pending at once.
  auto after = Call<EnqueueResult>(&Engine::EnqueueAfter, child, std::vector<std::string>{parent},
                                   std::string("parent_job_id"), QueueScope{});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(Get(after->id).status, JobStatus::kPending);
}

TEST_F(WorkflowEngineTest, BlockedJobsAreCountedInStatsAndMetrics) {
  Diamond();
  auto stats = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>("etl"));
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->blocked, 3);
  const std::string metrics = Scrape();
  EXPECT_EQ(Sample(metrics, R"(redrive_jobs{queue="etl",status="blocked"})"), 3);
  RunOne();
  EXPECT_EQ(Sample(Scrape(), R"(redrive_jobs_unblocked_total{queue="etl"})"), 2);
}

}  // namespace
}  // namespace redrive::engine::testing
