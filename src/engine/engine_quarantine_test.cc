// Crashes, quarantine, snooze and redrive budgets through the engine, on
// both write executors, with a manual clock: lease expiries are reaped by
// RunServicesOnce after the clock moves past them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/engine_test_util.h"

namespace redrive::engine {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::EngineByExecutorTest;

class QuarantineTest : public EngineByExecutorTest {
 protected:
  // Claims the job of `queue` and lets its lease expire (a crash); the job
  // is due again at once (no backoff).
  void CrashOnce(const std::string& queue) {
    auto jobs = Claim(queue, 1, 30);
    ASSERT_EQ(jobs.size(), 1u);
    clock_.Advance(seconds(31));
    engine_->RunServicesOnce();
  }
  EnqueueParams NoBackoff(int max_retries = 10) {
    EnqueueParams p;
    p.max_retries = max_retries;
    p.backoff = BackoffPolicy{milliseconds(0), milliseconds(0), milliseconds(0)};
    return p;
  }
  std::vector<std::string> HistoryTypes(const std::string& id) {
    auto h = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(id));
    std::vector<std::string> out;
    for (const auto& e : *h) out.push_back(e.event_type);
    return out;
  }
};

TEST_P(QuarantineTest, ThreeLeaseExpiriesQuarantineInsteadOfTheDlq) {
  const std::string id = Enqueue("q", NoBackoff());
  CrashOnce("q");
  CrashOnce("q");
  EXPECT_EQ(Get(id).status, JobStatus::kPending);
  EXPECT_EQ(Get(id).crash_count, 2);
  CrashOnce("q");
  const Job j = Get(id);
  EXPECT_EQ(j.status, JobStatus::kQuarantined);
  EXPECT_EQ(j.crash_count, 3);
  EXPECT_EQ(j.retry_count, 2);
  EXPECT_EQ(j.dead_reason, DeadReason::kNone);
  EXPECT_THAT(HistoryTypes(id),
              ::testing::ElementsAre("created", "processing", "lease_expired", "processing",
                                     "lease_expired", "processing", "quarantined"));
  // Not in the DLQ; listed and counted apart.
  auto dlq = Call<std::vector<Job>>(&Engine::ListDeadLetters, ListDeadLettersParams{});
  EXPECT_TRUE(dlq->empty());
  ListJobsParams list;
  list.status = JobStatus::kQuarantined;
  auto listed = Call<std::vector<Job>>(&Engine::ListJobs, list);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, id);
  auto stats = Call<StatusCounts>(&Engine::Stats, std::optional<std::string>("q"));
  EXPECT_EQ(stats->quarantined, 1);
  EXPECT_EQ(stats->deadletter, 0);
  // Nothing to claim any more.
  EXPECT_TRUE(Claim("q").empty());
  const std::string metrics = Scrape();
  EXPECT_EQ(Sample(metrics, "redrive_jobs_quarantined_total{queue=\"q\"}"), 1);
  EXPECT_EQ(Sample(metrics, "redrive_jobs{queue=\"q\",status=\"quarantined\"}"), 1);
  EXPECT_EQ(Sample(metrics, "redrive_lease_expiries_total{queue=\"q\"}"), 3);
}

TEST_P(QuarantineTest, AnExplicitFailCountsNoCrash) {
  const std::string id = Enqueue("q", NoBackoff());
  for (int i = 0; i < 4; ++i) {
    auto jobs = Claim("q");
    ASSERT_EQ(jobs.size(), 1u);
    ASSERT_TRUE(
        Call<FailResult>(&Engine::Fail, FailParams{id, "w1", *jobs[0].lease_id, "boom"}).ok());
  }
  const Job j = Get(id);
  EXPECT_EQ(j.status, JobStatus::kPending);
  EXPECT_EQ(j.crash_count, 0);
  EXPECT_EQ(j.retry_count, 4);
}

TEST_P(QuarantineTest, DeregisterChargesNothing) {
  RegisterWorkerParams reg;
  reg.queue_name = "q";
  reg.hostname = "h";
  const std::string id = Enqueue("q", NoBackoff());
  for (int i = 0; i < 4; ++i) {
    auto w = Call<WorkerInfo>(&Engine::RegisterWorker, reg);
    ASSERT_TRUE(w.ok());
    ASSERT_EQ(Claim("q", 1, 30, w->id).size(), 1u);
    ASSERT_TRUE(CallStatus(&Engine::DeregisterWorker, std::string(w->id)).ok());
  }
  const Job j = Get(id);
  EXPECT_EQ(j.status, JobStatus::kPending);
  EXPECT_EQ(j.crash_count, 0);
  EXPECT_EQ(j.retry_count, 0);
}

TEST_P(QuarantineTest, CrashLimitZeroKeepsTheOldBehaviour) {
  EnqueueParams p = NoBackoff(3);
  p.crash_limit = 0;
  const std::string id = Enqueue("q", p);
  for (int i = 0; i < 4; ++i) CrashOnce("q");
  const Job j = Get(id);
  EXPECT_EQ(j.status, JobStatus::kDeadletter);
  EXPECT_EQ(j.dead_reason, DeadReason::kLeaseExpired);
  EXPECT_EQ(j.crash_count, 4);
}

TEST_P(QuarantineTest, APerJobLimitOverridesTheQueuesAndTheQueueSetsTheDefault) {
  EnqueueParams one = NoBackoff();
  one.crash_limit = 1;
  const std::string strict = Enqueue("q", one);
  CrashOnce("q");
  EXPECT_EQ(Get(strict).status, JobStatus::kQuarantined);

  QueueConfigPatch patch;
  patch.crash_limit = 2;
  auto c = Call<QueueConfig>(&Engine::ConfigureQueue, std::string("q2"), patch);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->crash_limit, 2);
  const std::string id = Enqueue("q2", NoBackoff());
  EXPECT_EQ(Get(id).crash_limit, 2);
  CrashOnce("q2");
  CrashOnce("q2");
  EXPECT_EQ(Get(id).status, JobStatus::kQuarantined);
}

TEST_P(QuarantineTest, ReleaseResetsCrashesAndTheBudgetAsAsked) {
  const std::string id = Enqueue("q", NoBackoff(5));
  for (int i = 0; i < 3; ++i) CrashOnce("q");
  ASSERT_EQ(Get(id).status, JobStatus::kQuarantined);
  // A payload repair before the release, as for a dead job.
  ASSERT_TRUE(Call<Job>(&Engine::UpdatePayload, std::string(id), std::string(R"({"n":2})")).ok());

  auto released =
      Call<Job>(&Engine::ReleaseQuarantine, ReleaseParams{id, *ParseRetryBudget("keep")});
  ASSERT_TRUE(released.ok()) << released.status().ToString();
  EXPECT_EQ(released->status, JobStatus::kPending);
  EXPECT_EQ(released->crash_count, 0);
  EXPECT_EQ(released->retry_count, 2);  // kept
  EXPECT_EQ(released->payload, R"({"n":2})");
  const std::vector<std::string> types = HistoryTypes(id);
  ASSERT_GE(types.size(), 3u);
  EXPECT_THAT(std::vector<std::string>(types.end() - 3, types.end()),
              ::testing::ElementsAre("quarantined", "payload_updated", "quarantine_released"));
  // A second release: not quarantined any more.
  auto again = Call<Job>(&Engine::ReleaseQuarantine, ReleaseParams{id, {}});
  EXPECT_EQ(again.status().code(), ErrorCode::kConflict);
  // It runs again, with a whole crash budget.
  CrashOnce("q");
  EXPECT_EQ(Get(id).status, JobStatus::kPending);
  EXPECT_EQ(Get(id).crash_count, 1);
  EXPECT_EQ(Sample(Scrape(), "redrive_quarantine_releases_total{queue=\"q\"}"), 1);
}

TEST_P(QuarantineTest, ReleasingAJobThatIsNotQuarantinedIsAConflict) {
  const std::string pending = Enqueue("q");
  EXPECT_EQ(Call<Job>(&Engine::ReleaseQuarantine, ReleaseParams{pending, {}}).status().code(),
            ErrorCode::kConflict);
  const std::string dead = EnqueueDead("dead");
  EXPECT_EQ(Call<Job>(&Engine::ReleaseQuarantine, ReleaseParams{dead, {}}).status().code(),
            ErrorCode::kConflict);
  EXPECT_EQ(Call<Job>(&Engine::ReleaseQuarantine, ReleaseParams{"nope", {}}).status().code(),
            ErrorCode::kNotFound);
  // And a quarantined job is not retried as a dead one.
  EnqueueParams one = NoBackoff();
  one.crash_limit = 1;
  const std::string q = Enqueue("q2", one);
  CrashOnce("q2");
  RetryParams retry;
  retry.job_id = q;
  EXPECT_EQ(Call<Job>(&Engine::Retry, retry).status().code(), ErrorCode::kConflict);
}

TEST_P(QuarantineTest, BulkReleaseTakesTheSelectedQuarantinedJobsOnly) {
  EnqueueParams one = NoBackoff();
  one.crash_limit = 1;
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(Enqueue("a", one));
    CrashOnce("a");
  }
  const std::string other = Enqueue("b", one);
  CrashOnce("b");
  const std::string pending = Enqueue("a");

  BulkReleaseParams dry;
  dry.queue_name = "a";
  dry.dry_run = true;
  auto preview = Call<BulkReleaseResult>(&Engine::ReleaseQuarantined, dry);
  ASSERT_TRUE(preview.ok());
  EXPECT_EQ(preview->selected_count, 3);
  EXPECT_TRUE(preview->released_ids.empty());
  EXPECT_EQ(Get(ids[0]).status, JobStatus::kQuarantined);

  BulkReleaseParams two = dry;
  two.dry_run = false;
  two.limit = 2;
  auto r = Call<BulkReleaseResult>(&Engine::ReleaseQuarantined, two);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->released_ids.size(), 2u);
  auto rest = Call<BulkReleaseResult>(&Engine::ReleaseQuarantined, dry);
  EXPECT_EQ(rest->selected_count, 1);

  BulkReleaseParams named;
  named.job_ids = {ids[0], ids[1], ids[2], pending, "unknown"};
  auto by_id = Call<BulkReleaseResult>(&Engine::ReleaseQuarantined, named);
  ASSERT_TRUE(by_id.ok());
  EXPECT_EQ(by_id->released_ids.size(), 1u);  // the one still quarantined
  for (const std::string& id : ids) EXPECT_EQ(Get(id).status, JobStatus::kPending);
  EXPECT_EQ(Get(other).status, JobStatus::kQuarantined);
}

TEST_P(QuarantineTest, SnoozeSchedulesWithoutARetryAndIsBounded) {
  EnqueueParams p;
  p.max_snoozes = 2;
  const std::string id = Enqueue("q", p);
  for (int i = 1; i <= 2; ++i) {
    auto jobs = Claim("q");
    ASSERT_EQ(jobs.size(), 1u);
    auto s = Call<Job>(&Engine::Snooze, SnoozeParams{id, "w1", *jobs[0].lease_id, seconds(5)});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->status, JobStatus::kScheduled);
    EXPECT_EQ(s->scheduled_at, clock_.Now() + seconds(5));
    EXPECT_EQ(s->snooze_count, i);
    EXPECT_EQ(s->retry_count, 0);
    EXPECT_TRUE(Claim("q").empty());  // not before it is due
    clock_.Advance(seconds(5));
    engine_->RunServicesOnce();
  }
  auto jobs = Claim("q");
  ASSERT_EQ(jobs.size(), 1u);
  // Fenced like fail: a stale lease is refused first.
  EXPECT_EQ(Call<Job>(&Engine::Snooze, SnoozeParams{id, "w1", "stale", seconds(5)}).status().code(),
            ErrorCode::kLeaseExpired);
  auto refused = Call<Job>(&Engine::Snooze, SnoozeParams{id, "w1", *jobs[0].lease_id, seconds(5)});
  EXPECT_EQ(refused.status().code(), ErrorCode::kConflict);
  EXPECT_EQ(Get(id).status, JobStatus::kProcessing);  // the lease is kept
  EXPECT_THAT(HistoryTypes(id), ::testing::Contains("snoozed").Times(2));
  EXPECT_EQ(Sample(Scrape(), "redrive_jobs_snoozed_total{queue=\"q\"}"), 2);
  // Snoozing with no delay puts it back at once.
  EnqueueParams now_p;
  const std::string now_id = Enqueue("n", now_p);
  auto n = Claim("n");
  auto s = Call<Job>(&Engine::Snooze, SnoozeParams{now_id, "w1", *n[0].lease_id, milliseconds(0)});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->status, JobStatus::kPending);
}

TEST_P(QuarantineTest, RedriveBudgetsKeepOrExtend) {
  const std::string id = EnqueueDead("q");  // max_retries 0, retry_count 0
  RetryParams keep;
  keep.job_id = id;
  keep.budget = *ParseRetryBudget("extend:2");
  auto r = Call<Job>(&Engine::Retry, keep);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->max_retries, 2);
  auto h = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(id));
  EXPECT_THAT(h->back().details_json, ::testing::HasSubstr(R"("budget":"extend:2")"));

  const std::string dead = EnqueueDead("d");
  DlqRetryParams dlq;
  dlq.filter.queue_name = "d";
  dlq.budget = *ParseRetryBudget("keep");
  auto d = Call<DlqRetryResult>(&Engine::DlqRetry, dlq);
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->retried_ids.size(), 1u);
  h = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(dead));
  EXPECT_THAT(h->back().details_json, ::testing::HasSubstr(R"("budget":"keep")"));
}

INSTANTIATE_TEST_SUITE_P(Executors, QuarantineTest, testing::kBothExecutors,
                         testing::ExecutorTestName);

}  // namespace
}  // namespace redrive::engine
