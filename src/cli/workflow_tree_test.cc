#include "cli/workflow_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace redrive::cli {
namespace {

using ::testing::ElementsAre;

sdk::WorkflowJob J(std::string key, std::vector<std::string> depends_on = {},
                   JobStatus status = JobStatus::kBlocked) {
  sdk::WorkflowJob j;
  j.job.id = "id-" + key;
  j.job.status = status;
  j.key = std::move(key);
  for (std::string& d : depends_on) j.depends_on.push_back("id-" + d);
  return j;
}

std::vector<std::string> Labels(const std::vector<WorkflowTreeRow>& rows) {
  std::vector<std::string> out;
  for (const WorkflowTreeRow& r : rows) out.push_back(r.label);
  return out;
}

TEST(WorkflowTreeTest, AFanInIsShownUnderEachParentAndExpandedOnce) {
  std::vector<sdk::WorkflowJob> jobs{J("extract", {}, JobStatus::kCompleted),
                                     J("clean", {"extract"}), J("enrich", {"extract"}),
                                     J("load", {"clean", "enrich"}), J("report", {"load"})};
  auto rows = WorkflowTree(jobs);
  EXPECT_THAT(Labels(rows), ElementsAre("extract",          //
                                        "├─ clean",         //
                                        "│  └─ load",       //
                                        "│     └─ report",  //
                                        "└─ enrich",        //
                                        "   └─ load *"));
  EXPECT_EQ(rows[0].status, "completed");
  EXPECT_EQ(rows[0].job_id, "id-extract");
  EXPECT_FALSE(rows[2].repeated);
  EXPECT_TRUE(rows[5].repeated);
  EXPECT_EQ(rows[5].job_id, "id-load");
}

TEST(WorkflowTreeTest, SeveralRootsInDefinitionOrderAndMarks) {
  std::vector<sdk::WorkflowJob> jobs{J("a"), J("b"), J("c", {"a", "b"}), J("d", {"x"})};
  jobs[2].dependency_mode = DependencyMode::kAny;
  EXPECT_THAT(Labels(WorkflowTree(jobs)),
              ElementsAre("a", "└─ c (any)", "b", "└─ c (any) *", "d (+1 outside)"));
}

TEST(WorkflowTreeTest, ACycleStillShowsEveryJobOnce) {
  std::vector<sdk::WorkflowJob> jobs{J("a", {"b"}), J("b", {"a"})};
  EXPECT_THAT(Labels(WorkflowTree(jobs)), ElementsAre("a", "└─ b", "   └─ a *"));
}

TEST(WorkflowTreeTest, ALongChainStopsMovingRight) {
  std::vector<sdk::WorkflowJob> jobs{J("j0")};
  for (int i = 1; i <= 30; ++i) {
    jobs.push_back(J("j" + std::to_string(i), {"j" + std::to_string(i - 1)}));
  }
  auto rows = WorkflowTree(jobs);
  ASSERT_EQ(rows.size(), 31u);
  const std::string indent(3 * (kMaxTreeIndent - 1), ' ');
  EXPECT_EQ(rows[kMaxTreeIndent].label, indent + "└─ j24");
  EXPECT_EQ(rows[kMaxTreeIndent + 1].label, indent + "   └─ [depth 25] j25");
  EXPECT_EQ(rows[30].label, indent + "   └─ [depth 30] j30");
}

}  // namespace
}  // namespace redrive::cli
