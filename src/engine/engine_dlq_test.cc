// Redriving dead jobs through the engine: by id past the default limit, at a
// rate (spread, shared by a queue's redrives), and what a selection reports.
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/engine_test_util.h"

namespace redrive::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// Every test runs on both write executors (the PostgreSQL one on SQLite).
class DlqByExecutorTest : public testing::EngineByExecutorTest {};

TEST_P(DlqByExecutorTest, DlqRetryOfNamedJobsIgnoresTheDefaultLimit) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(EnqueueDead("q"));
  DlqRetryParams r;
  r.job_ids = ids;
  r.limit = 1;
  auto res = Call<DlqRetryResult>(&Engine::DlqRetry, r);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->retried_ids.size(), 3u);
}

TEST_P(DlqByExecutorTest, ThrottledDlqRetrySpreadsJobs) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(EnqueueDead("q"));
    clock_.Advance(milliseconds(10));
  }
  DlqRetryParams dry;
  dry.filter.queue_name = "q";
  dry.dry_run = true;
  auto d = Call<DlqRetryResult>(&Engine::DlqRetry, dry);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->matched_count, 3);
  EXPECT_EQ(Get(ids[0]).status, JobStatus::kDeadletter);

  DlqRetryParams r;
  r.filter.queue_name = "q";
  r.rate_per_second = 2;
  auto res = Call<DlqRetryResult>(&Engine::DlqRetry, r);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->retried_ids, ids);  // oldest dead first
  EXPECT_EQ(Get(ids[0]).status, JobStatus::kPending);
  EXPECT_EQ(Get(ids[1]).status, JobStatus::kScheduled);
  EXPECT_EQ(Get(ids[1]).scheduled_at, clock_.Now() + milliseconds(500));
  EXPECT_EQ(Get(ids[2]).scheduled_at, clock_.Now() + milliseconds(1000));
  EXPECT_EQ(Get(ids[2]).retry_count, 0);
  EXPECT_EQ(res->first_due_at, clock_.Now());
  EXPECT_EQ(res->last_due_at, clock_.Now() + milliseconds(1000));
}

TEST_P(DlqByExecutorTest, DlqRetryReportsMatchedBesidesSelected) {
  for (int i = 0; i < 3; ++i) EnqueueDead("q");
  DlqRetryParams p;
  p.filter.queue_name = "q";
  p.limit = 2;
  p.dry_run = true;
  auto dry = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->matched_count, 3);
  EXPECT_EQ(dry->selected_count, 2);
  p.dry_run = false;
  auto real = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(real->matched_count, 3);
  EXPECT_EQ(real->selected_count, 2);
  EXPECT_EQ(real->retried_ids.size(), 2u);
  EXPECT_FALSE(real->first_due_at);  // not throttled
  auto rest = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  EXPECT_EQ(rest->matched_count, 1);
  EXPECT_EQ(rest->selected_count, 1);
}

// Two throttled redrives of one queue in a row run at the rate asked, not at
// twice it: the second starts one interval after the first one's last job.
TEST_P(DlqByExecutorTest, ThrottledRedrivesOfAQueueShareOneRate) {
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    ids.push_back(EnqueueDead("q"));
    clock_.Advance(milliseconds(10));
  }
  const std::string late = EnqueueDead("q");  // the newest dead: redriven last
  const std::string other = EnqueueDead("other");
  const Instant t0 = clock_.Now();
  DlqRetryParams p;
  p.filter.queue_name = "q";
  p.limit = 2;
  p.rate_per_second = 2;
  auto first = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->last_due_at, t0 + milliseconds(500));
  clock_.Advance(milliseconds(100));
  auto second = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->first_due_at, t0 + milliseconds(1000));
  EXPECT_EQ(Get(ids[2]).scheduled_at, t0 + milliseconds(1000));
  EXPECT_EQ(Get(ids[3]).scheduled_at, t0 + milliseconds(1500));
  // Another queue's throttled redrive does not wait for this one.
  DlqRetryParams elsewhere;
  elsewhere.filter.queue_name = "other";
  elsewhere.rate_per_second = 2;
  auto o = Call<DlqRetryResult>(&Engine::DlqRetry, elsewhere);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->first_due_at, clock_.Now());
  EXPECT_EQ(Get(other).status, JobStatus::kPending);
  // Once the earlier redrives' jobs are all due, a new one starts now.
  clock_.Advance(seconds(5));
  auto third = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->first_due_at, clock_.Now());
  EXPECT_EQ(Get(late).status, JobStatus::kPending);
}

TEST_P(DlqByExecutorTest, ASelectionThatMatchesNothingNamesTheClosestClasses) {
  EnqueueDead("pay", "invalid card");
  EnqueueDead("pay", "gateway timeout after 30s");
  EnqueueDead("pay", "gateway timeout after 30s");
  DlqRetryParams p;
  p.filter.queue_name = "pay";
  p.filter.error_prefix = "Gateway timeuot";
  p.dry_run = true;
  auto r = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->matched_count, 0);
  ASSERT_EQ(r->closest_classes.size(), 2u);
  EXPECT_EQ(r->closest_classes[0].error, "gateway timeout after 30s");
  EXPECT_EQ(r->closest_classes[0].count, 2);
  // A queue without dead jobs (a typo?): the closest classes of every queue.
  p.filter.queue_name = "payy";
  p.filter.error_prefix = "invalid";
  r = Call<DlqRetryResult>(&Engine::DlqRetry, p);
  ASSERT_TRUE(r.ok());
  ASSERT_FALSE(r->closest_classes.empty());
  EXPECT_EQ(r->closest_classes[0].error, "invalid card");
  // A selection that matches has none.
  p.filter.queue_name = "pay";
  EXPECT_TRUE(Call<DlqRetryResult>(&Engine::DlqRetry, p)->closest_classes.empty());
  DlqPurgeParams purge;
  purge.filter.queue_name = "pay";
  purge.filter.error_prefix = "gateway timeout after 30s\u2026";
  purge.dry_run = true;
  auto pr = Call<DlqPurgeResult>(&Engine::DlqPurge, purge);
  ASSERT_TRUE(pr.ok());
  EXPECT_EQ(pr->count, 0);
  ASSERT_FALSE(pr->closest_classes.empty());
  EXPECT_EQ(pr->closest_classes[0].error, "gateway timeout after 30s");
}

INSTANTIATE_TEST_SUITE_P(Executors, DlqByExecutorTest, testing::kBothExecutors,
                         testing::ExecutorTestName);

}  // namespace
}  // namespace redrive::engine
