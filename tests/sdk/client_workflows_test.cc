// redrive::Client's workflow and dependency calls against the real server: a
// diamond created whole, its dependents blocked until the root completes
// through the lease calls; cancel; retry after a dead letter; dependencies
// added to single jobs; and refusals (a cycle, an unknown id) as values with
// their code, field and message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "sdk/support/sdk_fixture.h"

namespace redrive::sdk_test {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;
namespace json = boost::json;

sdk::WorkflowJobRequest Step(const std::string& key, const std::string& queue,
                             std::vector<std::string> depends_on = {}) {
  return {.key = key,
          .queue_name = queue,
          .payload = json::object{{"step", key}},
          .depends_on = std::move(depends_on)};
}

class ClientWorkflowsTest : public SdkTest {
 protected:
  // The workflow's job statuses by key.
  std::map<std::string, JobStatus> StatusesByKey(const std::string& workflow_id) {
    std::map<std::string, JobStatus> out;
    auto statuses = client_->WorkflowJobStatuses(workflow_id);
    EXPECT_TRUE(statuses.ok()) << statuses.status().ToString();
    if (!statuses.ok()) return out;
    for (const sdk::WorkflowJobStatus& s : *statuses) out[s.key] = s.status;
    return out;
  }

  // Claims every claimable job of `queue` (none waiting) and returns them.
  std::vector<sdk::ClaimedJob> ClaimAll(const std::string& queue) {
    auto r = client_->Claim({.queue_name = queue, .worker_id = "w1", .limit = 10});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->jobs : std::vector<sdk::ClaimedJob>{};
  }

  void CompleteAll(const std::vector<sdk::ClaimedJob>& jobs) {
    for (const sdk::ClaimedJob& j : jobs) {
      EXPECT_TRUE(client_->Complete(j.id, "w1", j.lease_id, {{"done", true}}).ok());
    }
  }
};

TEST_F(ClientWorkflowsTest, ADiamondRunsInDependencyOrder) {
  const auto q = NewQueue("wf");
  auto created = client_->CreateWorkflow(
      {.name = "nightly etl",
       .description = "orders",
       .metadata = json::object{{"team", "data"}},
       .jobs = {Step("extract", q), Step("clean", q, {"extract"}), Step("enrich", q, {"extract"}),
                Step("load", q, {"clean", "enrich"})}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_EQ(created->job_ids.size(), 4u);
  EXPECT_EQ(created->job_ids[0].key, "extract");
  EXPECT_EQ(created->job_ids[3].key, "load");
  const std::string id = created->workflow_id;
  const sdk::Workflow& w = created->workflow;
  EXPECT_EQ(w.id, id);
  EXPECT_EQ(w.name, "nightly etl");
  EXPECT_EQ(w.description, "orders");
  EXPECT_EQ(w.metadata.at("team"), "data");
  EXPECT_EQ(w.status, WorkflowStatus::kPending);
  EXPECT_EQ(w.total_jobs, 4);
  EXPECT_EQ(w.counts.pending, 1);
  EXPECT_EQ(w.counts.blocked, 3);
  EXPECT_FALSE(w.started_at.has_value());

  // The graph as listed: depends_on holds the ids of the jobs waited for.
  std::map<std::string, std::string> id_of;
  for (const sdk::WorkflowJobId& j : created->job_ids) id_of[j.key] = j.job_id;
  auto jobs = client_->ListWorkflowJobs(id);
  ASSERT_TRUE(jobs.ok()) << jobs.status().ToString();
  ASSERT_EQ(jobs->size(), 4u);
  const sdk::WorkflowJob& load = (*jobs)[3];
  EXPECT_EQ(load.key, "load");
  EXPECT_EQ(load.position, 3);
  EXPECT_EQ(load.workflow_id, id);
  EXPECT_EQ(load.job.id, id_of["load"]);
  EXPECT_EQ(load.job.status, JobStatus::kBlocked);
  EXPECT_EQ(load.dependency_mode, DependencyMode::kAll);
  EXPECT_THAT(load.depends_on, UnorderedElementsAre(id_of["clean"], id_of["enrich"]));
  EXPECT_EQ(sdk::PayloadOf((*jobs)[0].job), (json::value{{"step", "extract"}}));
  EXPECT_EQ(client_->ListWorkflowJobs(id, {.limit = 2, .offset = 1})->at(0).key, "clean");
  auto one = client_->GetWorkflowJob(id, id_of["enrich"]);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(one->key, "enrich");
  EXPECT_THAT(one->depends_on, UnorderedElementsAre(id_of["extract"]));

  auto deps = client_->GetJobDependencies(id_of["load"]);
  ASSERT_TRUE(deps.ok()) << deps.status().ToString();
  EXPECT_EQ(deps->status, JobStatus::kBlocked);
  EXPECT_FALSE(deps->dependencies_met);
  EXPECT_EQ(deps->readiness, Readiness::kWaiting);
  ASSERT_EQ(deps->dependencies.size(), 2u);
  EXPECT_EQ(deps->dependencies[0].queue_name, q);
  EXPECT_EQ(client_->GetJobDependencies(id_of["extract"])->dependents.size(), 2u);

  // Only the root is claimable; completing it unblocks clean and enrich.
  auto first = ClaimAll(q);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].id, id_of["extract"]);
  CompleteAll(first);
  EXPECT_EQ(StatusesByKey(id), (std::map<std::string, JobStatus>{{"extract", JobStatus::kCompleted},
                                                                 {"clean", JobStatus::kPending},
                                                                 {"enrich", JobStatus::kPending},
                                                                 {"load", JobStatus::kBlocked}}));
  auto running = client_->GetWorkflow(id);
  ASSERT_TRUE(running.ok()) << running.status().ToString();
  EXPECT_EQ(running->status, WorkflowStatus::kRunning);
  EXPECT_EQ(running->completed_jobs, 1);
  EXPECT_DOUBLE_EQ(running->progress_percent, 25.0);
  EXPECT_TRUE(running->started_at.has_value());
  EXPECT_FALSE(running->completed_at.has_value());

  // load waits for both.
  auto second = ClaimAll(q);
  ASSERT_EQ(second.size(), 2u);
  CompleteAll({second[0]});
  EXPECT_EQ(StatusesByKey(id)["load"], JobStatus::kBlocked);
  CompleteAll({second[1]});
  EXPECT_EQ(StatusesByKey(id)["load"], JobStatus::kPending);
  EXPECT_EQ(client_->GetJobDependencies(id_of["load"])->readiness, Readiness::kReady);
  auto last = ClaimAll(q);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].id, id_of["load"]);
  CompleteAll(last);

  auto done = client_->GetWorkflow(id);
  ASSERT_TRUE(done.ok());
  EXPECT_EQ(done->status, WorkflowStatus::kCompleted);
  EXPECT_EQ(done->counts.completed, 4);
  EXPECT_DOUBLE_EQ(done->progress_percent, 100.0);
  EXPECT_TRUE(done->completed_at.has_value());
  auto completed = client_->ListWorkflows({.status = WorkflowStatus::kCompleted, .limit = 100});
  ASSERT_TRUE(completed.ok()) << completed.status().ToString();
  EXPECT_TRUE(std::ranges::any_of(*completed, [&](const sdk::Workflow& x) { return x.id == id; }));
}

TEST_F(ClientWorkflowsTest, CancelCancelsEveryUnfinishedJobOnce) {
  const auto q = NewQueue("wf");
  auto created = client_->CreateWorkflow(
      {.name = "to cancel", .jobs = {Step("a", q), Step("b", q, {"a"}), Step("c", q, {"b"})}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::string id = created->workflow_id;

  auto cancelled = client_->CancelWorkflow(id);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status().ToString();
  EXPECT_EQ(cancelled->id, id);
  EXPECT_EQ(cancelled->status, WorkflowStatus::kCancelled);
  EXPECT_EQ(cancelled->counts.cancelled, 3);
  EXPECT_TRUE(cancelled->completed_at.has_value());
  for (const auto& [key, status] : StatusesByKey(id)) {
    EXPECT_EQ(status, JobStatus::kCancelled) << key;
  }
  EXPECT_TRUE(ClaimAll(q).empty());

  auto again = client_->CancelWorkflow(id);
  EXPECT_EQ(again.status().code(), ErrorCode::kConflict);
  EXPECT_THAT(again.status().message(), HasSubstr("no unfinished job"));

  auto listed = client_->ListWorkflows({.status = WorkflowStatus::kCancelled, .limit = 100});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_TRUE(std::ranges::any_of(*listed, [&](const sdk::Workflow& x) { return x.id == id; }));
  auto pending = client_->ListWorkflows({.status = WorkflowStatus::kPending, .limit = 100});
  ASSERT_TRUE(pending.ok());
  EXPECT_FALSE(std::ranges::any_of(*pending, [&](const sdk::Workflow& x) { return x.id == id; }));
}

TEST_F(ClientWorkflowsTest, RetryAfterADeadLetterRunsTheRestOfTheWorkflow) {
  const auto q = NewQueue("wf");
  sdk::WorkflowJobRequest root = Step("root", q);
  root.max_retries = 0;
  auto created =
      client_->CreateWorkflow({.name = "flaky", .jobs = {root, Step("after", q, {"root"})}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::string id = created->workflow_id;
  const std::string after_id = created->job_ids[1].job_id;

  // Retrying a workflow that has not failed is refused.
  EXPECT_EQ(client_->RetryWorkflow(id).status().code(), ErrorCode::kConflict);

  auto claimed = ClaimAll(q);
  ASSERT_EQ(claimed.size(), 1u);
  auto failed = client_->Fail(claimed[0].id, "w1", claimed[0].lease_id, "boom");
  ASSERT_TRUE(failed.ok()) << failed.status().ToString();
  EXPECT_EQ(failed->status, JobStatus::kDeadletter);

  auto dead = client_->GetWorkflow(id);
  ASSERT_TRUE(dead.ok());
  EXPECT_EQ(dead->status, WorkflowStatus::kFailed);
  EXPECT_EQ(dead->failed_jobs, 1);
  auto stuck = client_->GetJobDependencies(after_id);
  ASSERT_TRUE(stuck.ok());
  EXPECT_EQ(stuck->status, JobStatus::kBlocked);
  EXPECT_EQ(stuck->readiness, Readiness::kBlockedForever);

  auto retried = client_->RetryWorkflow(id);
  ASSERT_TRUE(retried.ok()) << retried.status().ToString();
  EXPECT_EQ(retried->status, WorkflowStatus::kPending);
  EXPECT_EQ(retried->failed_jobs, 0);
  EXPECT_EQ(StatusesByKey(id), (std::map<std::string, JobStatus>{{"root", JobStatus::kPending},
                                                                 {"after", JobStatus::kBlocked}}));
  CompleteAll(ClaimAll(q));
  EXPECT_EQ(StatusesByKey(id)["after"], JobStatus::kPending);
  CompleteAll(ClaimAll(q));
  EXPECT_EQ(client_->GetWorkflow(id)->status, WorkflowStatus::kCompleted);
}

TEST_F(ClientWorkflowsTest, DependenciesAddedToSingleJobs) {
  const auto q = NewQueue("deps");
  const std::string first = Enqueue(q);
  const std::string second = Enqueue(q);

  auto added = client_->AddJobDependencies(second, {first}, DependencyMode::kAny);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(added->added, 1);
  EXPECT_FALSE(added->dependencies_met);
  EXPECT_EQ(added->status, JobStatus::kBlocked);
  ASSERT_EQ(added->dependencies.size(), 1u);
  EXPECT_EQ(
      added->dependencies[0],
      (JobDependency{.job_id = second, .depends_on_job_id = first, .mode = DependencyMode::kAny}));
  // An existing edge is kept, not added again.
  EXPECT_EQ(client_->AddJobDependencies(second, {first})->added, 0);

  auto deps = client_->GetJobDependencies(first);
  ASSERT_TRUE(deps.ok()) << deps.status().ToString();
  EXPECT_TRUE(deps->dependencies.empty());
  ASSERT_EQ(deps->dependents.size(), 1u);
  EXPECT_EQ(deps->dependents[0].job_id, second);
  EXPECT_EQ(deps->dependents[0].status, JobStatus::kBlocked);

  // The other way round would be a cycle.
  auto cycle = client_->AddJobDependencies(first, {second});
  ASSERT_FALSE(cycle.ok());
  EXPECT_EQ(cycle.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(cycle.status().field(), "depends_on[0]");

  CompleteAll(ClaimAll(q));
  auto now_ready = client_->GetJobDependencies(second);
  ASSERT_TRUE(now_ready.ok());
  EXPECT_EQ(now_ready->status, JobStatus::kPending);
  EXPECT_TRUE(now_ready->dependencies_met);
}

// Spooled's parent_job_id on an enqueue: the job is blocked until its
// parent completes, then claimable; an unknown parent is refused naming it.
TEST_F(ClientWorkflowsTest, AJobEnqueuedWithAParentWaitsForIt) {
  const auto q = NewQueue("parent");
  const std::string parent = Enqueue(q);
  const std::string child =
      Enqueue(q, {.payload = json::object{{"n", 2}}, .parent_job_id = parent});
  auto deps = client_->GetJobDependencies(child);
  ASSERT_TRUE(deps.ok()) << deps.status().ToString();
  EXPECT_EQ(deps->status, JobStatus::kBlocked);
  ASSERT_EQ(deps->dependencies.size(), 1u);
  EXPECT_EQ(deps->dependencies[0].job_id, parent);

  std::vector<sdk::ClaimedJob> first = ClaimAll(q);
  ASSERT_EQ(first.size(), 1u);  // the child is not claimable yet
  EXPECT_EQ(first[0].id, parent);
  CompleteAll(first);
  std::vector<sdk::ClaimedJob> then = ClaimAll(q);
  ASSERT_EQ(then.size(), 1u);
  EXPECT_EQ(then[0].id, child);

  auto orphan = client_->Enqueue({.queue_name = q,
                                  .payload = json::object{},
                                  .parent_job_id = "01a00000-0000-7000-8000-000000000000"});
  ASSERT_FALSE(orphan.ok());
  EXPECT_EQ(orphan.status().field(), "parent_job_id");
}

TEST_F(ClientWorkflowsTest, RefusalsAreValuesWithCodeFieldAndMessage) {
  const auto q = NewQueue("wf");
  auto cycle = client_->CreateWorkflow(
      {.name = "w", .jobs = {Step("a", q, {"b"}), Step("b", q, {"a"}), Step("c", q)}});
  ASSERT_FALSE(cycle.ok());
  EXPECT_EQ(cycle.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(cycle.status().field(), "jobs[0].depends_on");
  EXPECT_THAT(cycle.status().message(), HasSubstr("dependency cycle at key 'a'"));
  EXPECT_THAT(cycle.status().message(), HasSubstr("a -> b -> a"));
  // Nothing of a refused workflow was created.
  EXPECT_TRUE(ClaimAll(q).empty());

  auto unknown = client_->CreateWorkflow({.name = "w", .jobs = {Step("a", q, {"nope"})}});
  EXPECT_EQ(unknown.status().code(), ErrorCode::kValidation);
  EXPECT_THAT(unknown.status().field(), HasSubstr("jobs[0].depends_on"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("nope"));

  auto missing = client_->GetWorkflow("0193a0c4-5e10-7b2a-9d4e-3f1c2b8a7d60");
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(client_->CancelWorkflow("no-such-workflow").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(client_->ListWorkflowJobs("no-such-workflow").status().code(), ErrorCode::kNotFound);

  auto created = client_->CreateWorkflow({.name = "w", .jobs = {Step("a", q)}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  const std::string stranger = Enqueue(q);
  auto not_its = client_->GetWorkflowJob(created->workflow_id, stranger);
  EXPECT_EQ(not_its.status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(not_its.status().message(), HasSubstr("is not a job of workflow"));
  auto bad_page = client_->ListWorkflows({.offset = -1});
  EXPECT_EQ(bad_page.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(bad_page.status().field(), "offset");
}

}  // namespace
}  // namespace redrive::sdk_test
