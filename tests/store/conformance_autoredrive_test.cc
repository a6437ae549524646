// Conformance: auto-redrive (core/autoredrive.h). A queue's policy and its
// state are kept as given, each written by its own narrow update (an
// operator's edit and the duty's step never undo each other); a job's
// automatic revivals count up, and the selection's auto_revivals_below
// leaves out the jobs at the ceiling.
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kClass[] = "0123456789abcdef";

AutoredriveRecord MakeRecord(const std::string& queue) {
  AutoredriveRecord rec;
  AutoredrivePolicy& p = rec.policy;
  p.queue_name = queue;
  p.enabled = true;
  p.fingerprint = kClass;
  p.reason = DeadReason::kMaxRetriesExceeded;
  p.cooldown = std::chrono::seconds(90);
  p.max_cooldown = std::chrono::seconds(3600);
  p.canary_size = 5;
  p.rate_per_second = 2.5;
  p.max_revivals_per_job = 4;
  p.created_at = T(1);
  p.updated_at = T(2);
  p.updated_by = "oncall";
  AutoredriveState& s = rec.state;
  s.phase = AutoredrivePhase::kCanary;
  s.current_cooldown = std::chrono::seconds(180);
  s.next_check_at = T(3);
  s.batch_job_ids = {"job-1", "job-2"};
  s.batch_target = 5;
  s.wave = 0;
  s.batch_started_at = T(4);
  s.total_revived = 12;
  s.backoffs = 1;
  s.last_decision = AutoredriveDecisionKind::kCanaryStarted;
  s.last_reason = "redriving 5 canaries of 40 eligible";
  s.last_decision_at = T(4);
  return rec;
}

TEST_P(StoreConformanceTest, AnAutoredrivePolicyIsStoredAsGiven) {
  EXPECT_FALSE(BeginRead()->GetAutoredrive("emails")->has_value());
  const AutoredriveRecord rec = MakeRecord("emails");
  AutoredriveRecord other = MakeRecord("billing");
  other.policy.reason.reset();
  other.policy.enabled = false;
  other.state = AutoredriveState{};
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertAutoredrive(rec).ok());
    ASSERT_TRUE(tx.InsertAutoredrive(other).ok());
  });
  auto got = BeginRead()->GetAutoredrive("emails");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->policy, rec.policy);
  EXPECT_EQ((*got)->state, rec.state);
  auto all = BeginRead()->ListAutoredrive();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].policy, other.policy);  // by queue name
  EXPECT_EQ((*all)[0].state, AutoredriveState{});
  EXPECT_EQ((*all)[1].policy.queue_name, "emails");
}

TEST_P(StoreConformanceTest, AutoredrivePolicyAndStateUpdatesAreNarrow) {
  const AutoredriveRecord rec = MakeRecord("emails");
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertAutoredrive(rec).ok()); });
  // The operator's edit: the policy only.
  AutoredrivePolicy edited = rec.policy;
  edited.canary_size = 9;
  edited.enabled = false;
  edited.reason.reset();
  edited.updated_at = T(50);
  edited.updated_by = "admin#1";
  edited.created_at = T(99);  // never written by an update
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateAutoredrivePolicy(edited).ok()); });
  auto got = *BeginRead()->GetAutoredrive("emails");
  EXPECT_EQ(got->policy.canary_size, 9);
  EXPECT_FALSE(got->policy.enabled);
  EXPECT_FALSE(got->policy.reason.has_value());
  EXPECT_EQ(got->policy.updated_by, "admin#1");
  EXPECT_EQ(got->policy.created_at, T(1));
  EXPECT_EQ(got->state, rec.state);
  // The duty's step: the state only.
  AutoredriveState next;
  next.phase = AutoredrivePhase::kBackedOff;
  next.current_cooldown = std::chrono::seconds(360);
  next.next_check_at = T(400);
  next.total_revived = 14;
  next.backoffs = 2;
  next.last_decision = AutoredriveDecisionKind::kBackedOff;
  next.last_reason = "1 of 5 canaries died again";
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateAutoredriveState("emails", next).ok()); });
  got = *BeginRead()->GetAutoredrive("emails");
  EXPECT_EQ(got->state, next);
  EXPECT_THAT(got->state.batch_job_ids, IsEmpty());
  EXPECT_EQ(got->policy.canary_size, 9);
  // Unknown queues.
  auto tx = BeginWrite();
  AutoredrivePolicy unknown = rec.policy;
  unknown.queue_name = "nope";
  EXPECT_EQ(tx->UpdateAutoredrivePolicy(unknown).code(), ErrorCode::kNotFound);
  EXPECT_EQ(tx->UpdateAutoredriveState("nope", next).code(), ErrorCode::kNotFound);
  EXPECT_EQ(tx->DeleteAutoredrive("nope").code(), ErrorCode::kNotFound);
  EXPECT_TRUE(tx->DeleteAutoredrive("emails").ok());
  EXPECT_FALSE(tx->GetAutoredrive("emails")->has_value());
  ASSERT_TRUE(tx->Commit().ok());
}

TEST_P(StoreConformanceTest, AutoRevivalsCountUpAndTheCeilingLeavesJobsOut) {
  std::vector<Job> jobs;
  for (const char* id : {"job-a", "job-b", "job-c"}) {
    Job j = AsDead(MakeJob(id), DeadReason::kMaxRetriesExceeded, T(5));
    j.error_fingerprint = kClass;
    jobs.push_back(j);
  }
  Job other = AsDead(MakeJob("job-other"), DeadReason::kMaxRetriesExceeded, T(5));
  other.error_fingerprint = "fedcba9876543210";
  jobs.push_back(other);
  Insert(jobs);
  Write([&](WriteTx& tx) {
    auto n = tx.CountAutoRevivals({"job-a", "job-b", "job-unknown"});
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(*n, 2);
    EXPECT_EQ(*tx.CountAutoRevivals({"job-a"}), 1);
    EXPECT_EQ(*tx.CountAutoRevivals({}), 0);
  });
  // job-a: 2 revivals, job-b: 1, job-c: 0.
  JobSelection sel;
  sel.statuses = {JobStatus::kDeadletter};
  sel.match.queue_name = "emails";
  sel.match.fingerprint = kClass;
  sel.match.limit = 10;
  auto count = [&](std::optional<int> below) {
    sel.match.auto_revivals_below = below;
    return *BeginRead()->CountSelectedJobs(sel);
  };
  EXPECT_EQ(count(std::nullopt), 3);
  EXPECT_EQ(count(3), 3);
  EXPECT_EQ(count(2), 2);
  EXPECT_EQ(count(1), 1);
  sel.match.auto_revivals_below = 2;
  auto tx = BeginWrite();
  EXPECT_THAT(Ids(*tx->SelectJobsAfter(sel)), ElementsAre("job-b", "job-c"));
  ASSERT_TRUE(tx->Commit().ok());
}

}  // namespace
}  // namespace redrive::store::testing
