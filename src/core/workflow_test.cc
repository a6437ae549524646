// The dependency model with no I/O: the graph validation of a workflow
// (every refusal names its key and field), the readiness of a job given its
// dependencies' statuses (every status in both modes), and the derived
// status of a workflow.
#include "core/workflow.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace redrive {
namespace {

using S = JobStatus;
using Specs = std::vector<WorkflowJobSpec>;

WorkflowJobSpec Spec(std::string key, std::vector<std::string> deps = {},
                     DependencyMode mode = DependencyMode::kAll) {
  return {std::move(key), std::move(deps), mode};
}

// ---------------------------------------------------------------------------
// ValidateWorkflowGraph

TEST(ValidateWorkflowGraphTest, AcceptsADiamond) {
  const Specs jobs = {Spec("a"), Spec("b", {"a"}), Spec("c", {"a"}), Spec("d", {"b", "c"})};
  EXPECT_TRUE(ValidateWorkflowGraph(jobs).ok());
}

TEST(ValidateWorkflowGraphTest, AcceptsDependenciesListedBeforeTheirJobs) {
  const Specs jobs = {Spec("last", {"first"}), Spec("first")};
  EXPECT_TRUE(ValidateWorkflowGraph(jobs).ok());
}

TEST(ValidateWorkflowGraphTest, RefusesNoJobsAndTooManyJobs) {
  Status none = ValidateWorkflowGraph(Specs{});
  EXPECT_EQ(none.code(), ErrorCode::kValidation);
  EXPECT_EQ(none.field(), "jobs");
  const Specs three = {Spec("a"), Spec("b"), Spec("c")};
  Status many = ValidateWorkflowGraph(three, 2);
  EXPECT_EQ(many.field(), "jobs");
  EXPECT_NE(many.message().find("1 to 2"), std::string::npos) << many.message();
}

TEST(ValidateWorkflowGraphTest, RefusesBadKeys) {
  for (const std::string& key : {std::string(), std::string(101, 'k'), std::string("a b"),
                                 std::string("a/b"), std::string("é")}) {
    const Specs jobs = {Spec("ok"), Spec(key)};
    Status st = ValidateWorkflowGraph(jobs);
    EXPECT_EQ(st.code(), ErrorCode::kValidation) << key;
    EXPECT_EQ(st.field(), "jobs[1].key") << key;
  }
  const Specs longest = {Spec(std::string(100, 'k')), Spec("A-z_09")};
  EXPECT_TRUE(ValidateWorkflowGraph(longest).ok());
}

TEST(ValidateWorkflowGraphTest, RefusesADuplicateKeyNamingIt) {
  const Specs jobs = {Spec("a"), Spec("b"), Spec("a")};
  Status st = ValidateWorkflowGraph(jobs);
  EXPECT_EQ(st.field(), "jobs[2].key");
  EXPECT_NE(st.message().find("duplicate key 'a'"), std::string::npos) << st.message();
}

TEST(ValidateWorkflowGraphTest, RefusesAnUnknownKeyNamingBoth) {
  const Specs jobs = {Spec("a"), Spec("b", {"a", "zz"})};
  Status st = ValidateWorkflowGraph(jobs);
  EXPECT_EQ(st.field(), "jobs[1].depends_on[1]");
  EXPECT_NE(st.message().find("'b' depends on unknown key 'zz'"), std::string::npos)
      << st.message();
}

TEST(ValidateWorkflowGraphTest, RefusesSelfDependency) {
  const Specs jobs = {Spec("a"), Spec("b", {"b"})};
  Status st = ValidateWorkflowGraph(jobs);
  EXPECT_EQ(st.field(), "jobs[1].depends_on[0]");
  EXPECT_NE(st.message().find("'b' depends on itself"), std::string::npos) << st.message();
}

TEST(ValidateWorkflowGraphTest, RefusesARepeatedDependency) {
  const Specs jobs = {Spec("a"), Spec("b", {"a", "a"})};
  Status st = ValidateWorkflowGraph(jobs);
  EXPECT_EQ(st.field(), "jobs[1].depends_on[1]");
  EXPECT_NE(st.message().find("twice"), std::string::npos) << st.message();
}

TEST(ValidateWorkflowGraphTest, RefusesTooManyEdgesNamingTheJob) {
  const Specs jobs = {Spec("a"), Spec("b"), Spec("c", {"a", "b"})};
  EXPECT_TRUE(ValidateWorkflowGraph(jobs, 10, 2).ok());
  Status st = ValidateWorkflowGraph(jobs, 10, 1);
  EXPECT_EQ(st.field(), "jobs[2].depends_on[1]");
  EXPECT_NE(st.message().find("at key 'c'"), std::string::npos) << st.message();
}

TEST(ValidateWorkflowGraphTest, RefusesATwoCycleNamingIt) {
  const Specs jobs = {Spec("root"), Spec("a", {"b"}), Spec("b", {"a"})};
  Status st = ValidateWorkflowGraph(jobs);
  EXPECT_EQ(st.code(), ErrorCode::kValidation);
  EXPECT_NE(st.message().find("dependency cycle"), std::string::npos) << st.message();
  const bool named = st.message().find("a -> b -> a") != std::string::npos ||
                     st.message().find("b -> a -> b") != std::string::npos;
  EXPECT_TRUE(named) << st.message();
}

TEST(ValidateWorkflowGraphTest, RefusesALongCycleBehindAnAcyclicPart) {
  // x waits for the cycle c1 -> c2 -> c3 -> c1 but is not on it: the cycle is named.
  const Specs jobs = {Spec("x", {"c1"}), Spec("c1", {"c3"}), Spec("c2", {"c1"}),
                      Spec("c3", {"c2"})};
  Status st = ValidateWorkflowGraph(jobs);
  EXPECT_EQ(st.code(), ErrorCode::kValidation);
  EXPECT_EQ(st.message().find("'x'"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("c1"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("c2"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("c3"), std::string::npos) << st.message();
}

TEST(ValidateWorkflowGraphTest, AcceptsALargeFanOutFanIn) {
  Specs jobs = {Spec("first")};
  std::vector<std::string> middle;
  for (int i = 0; i < 9998; ++i) {
    middle.push_back("m" + std::to_string(i));
    jobs.push_back(Spec(middle.back(), {"first"}));
  }
  jobs.push_back(Spec("last", middle));
  EXPECT_TRUE(ValidateWorkflowGraph(jobs).ok());
}

TEST(ValidateWorkflowGraphTest, AcceptsALongChainWithoutRecursing) {
  Specs jobs = {Spec("k0")};
  for (int i = 1; i < 10000; ++i) {
    jobs.push_back(Spec("k" + std::to_string(i), {"k" + std::to_string(i - 1)}));
  }
  EXPECT_TRUE(ValidateWorkflowGraph(jobs).ok());
  jobs[0].depends_on = {"k9999"};
  EXPECT_EQ(ValidateWorkflowGraph(jobs).code(), ErrorCode::kValidation);
}

// ---------------------------------------------------------------------------
// DecideReadiness

// The class of one dependency's status.
enum class Kind { kDone, kFailed, kInProgress };
Kind KindOf(S s) {
  switch (s) {
    case S::kCompleted:
      return Kind::kDone;
    case S::kDeadletter:
    case S::kCancelled:
    case S::kQuarantined:
      return Kind::kFailed;
    case S::kPending:
    case S::kScheduled:
    case S::kProcessing:
    case S::kBlocked:
      return Kind::kInProgress;
  }
  return Kind::kInProgress;
}

TEST(DecideReadinessTest, NoDependencyIsReadyInBothModes) {
  EXPECT_EQ(DecideReadiness(DependencyMode::kAll, {}), Readiness::kReady);
  EXPECT_EQ(DecideReadiness(DependencyMode::kAny, {}), Readiness::kReady);
}

// One dependency in every status: both modes agree.
TEST(DecideReadinessTest, OneDependencyInEachStatus) {
  for (S s : kAllStatuses) {
    const S deps[] = {s};
    const Readiness want = KindOf(s) == Kind::kDone     ? Readiness::kReady
                           : KindOf(s) == Kind::kFailed ? Readiness::kBlockedForever
                                                        : Readiness::kWaiting;
    EXPECT_EQ(DecideReadiness(DependencyMode::kAll, deps), want) << JobStatusName(s);
    EXPECT_EQ(DecideReadiness(DependencyMode::kAny, deps), want) << JobStatusName(s);
  }
}

// Every pair of statuses, in both modes, against the rule stated plainly.
TEST(DecideReadinessTest, EveryPairOfStatuses) {
  for (S a : kAllStatuses) {
    for (S b : kAllStatuses) {
      const S deps[] = {a, b};
      const Kind ka = KindOf(a), kb = KindOf(b);
      const bool both_done = ka == Kind::kDone && kb == Kind::kDone;
      const bool one_done = ka == Kind::kDone || kb == Kind::kDone;
      const bool one_failed = ka == Kind::kFailed || kb == Kind::kFailed;
      const bool both_failed = ka == Kind::kFailed && kb == Kind::kFailed;
      const Readiness all = both_done    ? Readiness::kReady
                            : one_failed ? Readiness::kBlockedForever
                                         : Readiness::kWaiting;
      const Readiness any = one_done      ? Readiness::kReady
                            : both_failed ? Readiness::kBlockedForever
                                          : Readiness::kWaiting;
      const std::string where = std::string(JobStatusName(a)) + "," + JobStatusName(b);
      EXPECT_EQ(DecideReadiness(DependencyMode::kAll, deps), all) << where;
      EXPECT_EQ(DecideReadiness(DependencyMode::kAny, deps), any) << where;
    }
  }
}

TEST(DecideReadinessTest, AllWaitsForTheLastOfManyAndAnyForTheFirst) {
  std::vector<S> deps(9998, S::kCompleted);
  deps.push_back(S::kProcessing);
  EXPECT_EQ(DecideReadiness(DependencyMode::kAll, deps), Readiness::kWaiting);
  EXPECT_EQ(DecideReadiness(DependencyMode::kAny, deps), Readiness::kReady);
  deps.back() = S::kCompleted;
  EXPECT_EQ(DecideReadiness(DependencyMode::kAll, deps), Readiness::kReady);
}

TEST(DependencyModeTest, NamesRoundTripAndNothingElseParses) {
  for (DependencyMode m : {DependencyMode::kAll, DependencyMode::kAny}) {
    EXPECT_EQ(ParseDependencyMode(DependencyModeName(m)), m);
  }
  EXPECT_EQ(ParseDependencyMode("ALL"), std::nullopt);
  EXPECT_EQ(ParseDependencyMode(""), std::nullopt);
  EXPECT_STREQ(ReadinessName(Readiness::kBlockedForever), "blocked_forever");
}

// ---------------------------------------------------------------------------
// DeriveWorkflowStatus

StatusCounts Counts(std::initializer_list<std::pair<S, long long>> by_status) {
  StatusCounts c;
  for (const auto& [s, n] : by_status) c.of(s) += n;
  return c;
}

TEST(DeriveWorkflowStatusTest, FromItsJobs) {
  using W = WorkflowStatus;
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kPending, 1}, {S::kBlocked, 3}})), W::kPending);
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kScheduled, 1}, {S::kBlocked, 3}})), W::kPending);
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kProcessing, 1}, {S::kBlocked, 3}})), W::kRunning);
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kCompleted, 1}, {S::kPending, 3}})), W::kRunning);
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kCompleted, 4}})), W::kCompleted);
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kCompleted, 1}, {S::kDeadletter, 1}})), W::kFailed);
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kQuarantined, 1}, {S::kBlocked, 2}})), W::kFailed);
  // Cancelling a failed workflow cancels its unfinished jobs: it reads cancelled.
  EXPECT_EQ(DeriveWorkflowStatus(Counts({{S::kDeadletter, 1}, {S::kCancelled, 2}})), W::kCancelled);
  EXPECT_EQ(DeriveWorkflowStatus(StatusCounts{}), W::kPending);
}

TEST(DeriveWorkflowStatusTest, EveryStatusAloneAndFailedJobs) {
  for (S s : kAllStatuses) {
    const StatusCounts c = Counts({{s, 2}});
    const WorkflowStatus w = DeriveWorkflowStatus(c);
    switch (s) {
      case S::kCompleted:
        EXPECT_EQ(w, WorkflowStatus::kCompleted);
        break;
      case S::kDeadletter:
      case S::kQuarantined:
        EXPECT_EQ(w, WorkflowStatus::kFailed);
        EXPECT_EQ(FailedJobs(c), 2);
        break;
      case S::kCancelled:
        EXPECT_EQ(w, WorkflowStatus::kCancelled);
        break;
      case S::kProcessing:
        EXPECT_EQ(w, WorkflowStatus::kRunning);
        break;
      case S::kPending:
      case S::kScheduled:
      case S::kBlocked:
        EXPECT_EQ(w, WorkflowStatus::kPending);
        break;
    }
  }
}

TEST(WorkflowStatusTest, NamesRoundTrip) {
  for (WorkflowStatus w : kAllWorkflowStatuses) {
    EXPECT_EQ(ParseWorkflowStatus(WorkflowStatusName(w)), w);
  }
  EXPECT_EQ(ParseWorkflowStatus("blocked"), std::nullopt);
}

}  // namespace
}  // namespace redrive
