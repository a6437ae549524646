// Schedules under a manual clock: firing, each missed-run and overlap
// policy across simulated outages, pause/resume, trigger, a DST day, the
// history and the metrics.
#include <gmock/gmock.h>

#include "core/time_format.h"
#include "engine/engine_test_util.h"

namespace redrive::engine::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Instant At(std::string_view rfc3339) { return ParseTime(rfc3339).value(); }

class ScheduleEngineTest : public EngineTest {
 protected:
  Schedule Create(CreateScheduleParams p) {
    if (p.name.empty()) p.name = "every five minutes";
    if (p.cron_expression.empty()) p.cron_expression = "*/5 * * * *";
    if (p.queue_name.empty()) p.queue_name = "reports";
    auto r = Call<Schedule>(&Engine::CreateSchedule, std::move(p));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Schedule{};
  }
  Schedule Get(const std::string& id) {
    auto r = Call<Schedule>(&Engine::GetSchedule, id);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : Schedule{};
  }
  // Runs the services at `t`.
  void RunAt(std::string_view t) {
    clock_.Set(At(t));
    engine_->RunServicesOnce();
  }
  std::vector<Job> JobsOf(const std::string& queue = "reports") {
    store::JobFilter f;
    f.queue_name = queue;
    f.limit = 1000;
    auto jobs = (*store_->BeginRead())->ListJobs(f, true);
    EXPECT_TRUE(jobs.ok());
    std::vector<Job> out = jobs.ok() ? *jobs : std::vector<Job>{};
    std::reverse(out.begin(), out.end());  // oldest first
    return out;
  }
  std::vector<ScheduleHistoryEntry> History(const std::string& id) {
    auto r = Call<std::vector<ScheduleHistoryEntry>>(&Engine::ScheduleHistory, id, 100, 0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<ScheduleHistoryEntry>{};
  }
  static std::vector<std::string> FireTimes(const std::vector<ScheduleHistoryEntry>& h) {
    std::vector<std::string> out;
    for (auto it = h.rbegin(); it != h.rend(); ++it) {
      out.push_back(FormatTime(it->run.fire_time) + " " + ScheduleRunKindName(it->run.kind) +
                    (it->run.job_id ? " job" : " none"));
    }
    return out;
  }
};

TEST_F(ScheduleEngineTest, FiresOnceAtEachTimeThroughTheEnqueuePath) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create(
      {.payload_template = R"({"report":"daily"})", .priority = 7, .tags = {{"team", "billing"}}});
  EXPECT_EQ(s.next_run_at, At("2027-01-15T10:05:00Z"));
  RunAt("2027-01-15T10:04:59Z");
  EXPECT_TRUE(JobsOf().empty());

  RunAt("2027-01-15T10:05:00Z");
  RunAt("2027-01-15T10:05:01Z");
  std::vector<Job> jobs = JobsOf();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].payload, R"({"report":"daily"})");
  EXPECT_EQ(jobs[0].priority, 7);
  EXPECT_EQ(jobs[0].tags.at("team"), "billing");
  EXPECT_EQ(jobs[0].tags.at("schedule_id"), s.id);
  EXPECT_EQ(jobs[0].idempotency_key,
            "schedule:" + s.id + ":" + std::to_string(ToMicros(At("2027-01-15T10:05:00Z"))));
  auto created = (*store_->BeginRead())->GetHistory(jobs[0].id);
  ASSERT_TRUE(created.ok());
  ASSERT_FALSE(created->empty());
  EXPECT_EQ((*created)[0].event_type, "created");

  Schedule after = Get(s.id);
  EXPECT_EQ(after.next_run_at, At("2027-01-15T10:10:00Z"));
  EXPECT_EQ(after.last_run_at, At("2027-01-15T10:05:00Z"));
  EXPECT_EQ(after.last_job_id, jobs[0].id);
  EXPECT_EQ(after.run_count, 1);
  auto history = History(s.id);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].run.job_id, jobs[0].id);
  EXPECT_EQ(history[0].job_status, JobStatus::kPending);
  EXPECT_THAT(Scrape(), HasSubstr("redrive_schedules_fired_total 1"));
}

// A node that fires a time another already fired (its leadership overlapped,
// it read a stale next_run_at) enqueues nothing new: the idempotency key.
TEST_F(ScheduleEngineTest, FiringATimeAgainEnqueuesNoSecondJob) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({});
  RunAt("2027-01-15T10:05:00Z");
  ASSERT_EQ(JobsOf().size(), 1u);
  Schedule stale = Get(s.id);
  stale.next_run_at = At("2027-01-15T10:05:00Z");
  {
    auto tx = store_->BeginWrite();
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE((*tx)->UpdateSchedule(stale).ok());
    ASSERT_TRUE((*tx)->Commit().ok());
  }
  RunAt("2027-01-15T10:05:30Z");
  EXPECT_EQ(JobsOf().size(), 1u);
  EXPECT_EQ(Get(s.id).run_count, 1);
}

// A pass that runs late (the duty's lag) fires the time it came for; the
// next time is one period after that time, not after the pass: an `@every`
// schedule keeps its pace instead of drifting by each pass's lag.
TEST_F(ScheduleEngineTest, EveryKeepsItsPaceWhenAPassRunsLate) {
  clock_.Set(At("2027-01-15T10:00:00.250Z"));
  Schedule s = Create({.cron_expression = "@every 10s"});
  EXPECT_EQ(s.next_run_at, At("2027-01-15T10:00:10.250Z"));
  RunAt("2027-01-15T10:00:10.900Z");
  EXPECT_EQ(Get(s.id).next_run_at, At("2027-01-15T10:00:20.250Z"));
  RunAt("2027-01-15T10:00:21.100Z");
  RunAt("2027-01-15T10:00:30.250Z");
  EXPECT_THAT(FireTimes(History(s.id)), ElementsAre("2027-01-15T10:00:10.250Z scheduled job",
                                                    "2027-01-15T10:00:20.250Z scheduled job",
                                                    "2027-01-15T10:00:30.250Z scheduled job"));
}

TEST_F(ScheduleEngineTest, SkipFiresNothingForMissedTimes) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({});
  // Down from 10:02 to 11:03: 10:05 ... 11:00 all missed, 11:00 by 3 minutes.
  RunAt("2027-01-15T11:03:00Z");
  EXPECT_TRUE(JobsOf().empty());
  EXPECT_EQ(Get(s.id).next_run_at, At("2027-01-15T11:05:00Z"));
  auto history = History(s.id);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_THAT(*history[0].run.error, HasSubstr("missed 12 fire time(s)"));
  EXPECT_THAT(Scrape(), HasSubstr("redrive_schedules_missed_total 12"));
}

TEST_F(ScheduleEngineTest, SkipStillFiresTheLatestTimeWithinTheGrace) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({});
  RunAt("2027-01-15T11:00:30Z");
  ASSERT_EQ(JobsOf().size(), 1u);
  EXPECT_THAT(FireTimes(History(s.id)), ElementsAre("2027-01-15T10:05:00.000Z scheduled none",
                                                    "2027-01-15T11:00:00.000Z scheduled job"));
}

TEST_F(ScheduleEngineTest, RunOnceEnqueuesOneJobForAllMissedTimes) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({.missed_run_policy = MissedRunPolicy::kRunOnce});
  RunAt("2027-01-15T11:03:00Z");
  ASSERT_EQ(JobsOf().size(), 1u);
  EXPECT_THAT(FireTimes(History(s.id)), ElementsAre("2027-01-15T11:00:00.000Z scheduled job"));
  EXPECT_EQ(Get(s.id).next_run_at, At("2027-01-15T11:05:00Z"));
}

TEST_F(ScheduleEngineTest, BackfillEnqueuesTheLatestMissedTimesUpToItsLimit) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({.missed_run_policy = MissedRunPolicy::kBackfill, .backfill_limit = 3});
  RunAt("2027-01-15T11:03:00Z");
  EXPECT_EQ(JobsOf().size(), 3u);
  EXPECT_THAT(FireTimes(History(s.id)), ElementsAre("2027-01-15T10:05:00.000Z scheduled none",
                                                    "2027-01-15T10:50:00.000Z backfill job",
                                                    "2027-01-15T10:55:00.000Z backfill job",
                                                    "2027-01-15T11:00:00.000Z backfill job"));
  EXPECT_EQ(Get(s.id).run_count, 3);
}

TEST_F(ScheduleEngineTest, SkipIfRunningRecordsASkippedRun) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({.overlap_policy = OverlapPolicy::kSkipIfRunning});
  RunAt("2027-01-15T10:05:00Z");
  RunAt("2027-01-15T10:10:00Z");
  ASSERT_EQ(JobsOf().size(), 1u);
  auto history = History(s.id);
  ASSERT_EQ(history.size(), 2u);
  EXPECT_FALSE(history[0].run.job_id);
  EXPECT_THAT(*history[0].run.error, HasSubstr("still pending"));
  EXPECT_THAT(Scrape(), HasSubstr("redrive_schedules_skipped_total 1"));

  // Once the job is done, the next time fires again.
  auto claimed = Claim("reports");
  ASSERT_EQ(claimed.size(), 1u);
  ASSERT_TRUE(
      CallStatus(&Engine::Complete, CompleteParams{claimed[0].id, "w1", *claimed[0].lease_id, "{}"})
          .ok());
  RunAt("2027-01-15T10:15:00Z");
  EXPECT_EQ(JobsOf().size(), 2u);
}

TEST_F(ScheduleEngineTest, CancelPreviousCancelsTheRunningJobThenEnqueues) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Create({.overlap_policy = OverlapPolicy::kCancelPrevious});
  RunAt("2027-01-15T10:05:00Z");
  auto claimed = Claim("reports");
  ASSERT_EQ(claimed.size(), 1u);
  RunAt("2027-01-15T10:10:00Z");
  std::vector<Job> jobs = JobsOf();
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].status, JobStatus::kCancelled);
  EXPECT_EQ(jobs[1].status, JobStatus::kPending);
  auto history = (*store_->BeginRead())->GetHistory(jobs[0].id);
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->back().event_type, "cancelled");
}

TEST_F(ScheduleEngineTest, PauseStopsFiringAndASkipScheduleResumesFromNow) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({});  // missed_run_policy skip
  auto paused = Call<Schedule>(&Engine::PauseSchedule, s.id);
  ASSERT_TRUE(paused.ok());
  EXPECT_FALSE(paused->is_active);
  EXPECT_FALSE(paused->next_run_at);
  RunAt("2027-01-15T10:33:00Z");
  EXPECT_TRUE(JobsOf().empty());
  auto resumed = Call<Schedule>(&Engine::ResumeSchedule, s.id);
  ASSERT_TRUE(resumed.ok());
  EXPECT_TRUE(resumed->is_active);
  EXPECT_EQ(resumed->next_run_at, At("2027-01-15T10:35:00Z"));
  RunAt("2027-01-15T10:35:00Z");
  EXPECT_EQ(JobsOf().size(), 1u);  // nothing of the paused half hour
  EXPECT_EQ(History(s.id).size(), 1u);
}

// The fire times a pause made it miss are the missed_run_policy's, as a
// server's downtime: backfill enqueues the latest up to its limit, run_once
// one job; by a resume through PUT is_active too.
TEST_F(ScheduleEngineTest, ResumingCatchesUpWhatThePauseMissedAsItsPolicySays) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule backfill =
      Create({.missed_run_policy = MissedRunPolicy::kBackfill, .backfill_limit = 3});
  Schedule once = Create({.missed_run_policy = MissedRunPolicy::kRunOnce});
  ASSERT_TRUE(Call<Schedule>(&Engine::PauseSchedule, backfill.id).ok());
  ASSERT_TRUE(Call<Schedule>(&Engine::PauseSchedule, once.id).ok());
  RunAt("2027-01-15T10:33:00Z");  // 10:05 ... 10:30 passed while paused
  EXPECT_TRUE(JobsOf().empty());

  auto resumed = Call<Schedule>(&Engine::ResumeSchedule, backfill.id);
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(resumed->next_run_at, At("2027-01-15T10:05:00Z"));  // due: the first it missed
  auto by_put = Call<Schedule>(&Engine::UpdateSchedule, once.id, SchedulePatch{.is_active = true});
  ASSERT_TRUE(by_put.ok());
  EXPECT_EQ(by_put->next_run_at, At("2027-01-15T10:05:00Z"));
  RunAt("2027-01-15T10:33:00Z");
  EXPECT_THAT(
      FireTimes(History(backfill.id)),
      ElementsAre("2027-01-15T10:05:00.000Z scheduled none",
                  "2027-01-15T10:20:00.000Z backfill job", "2027-01-15T10:25:00.000Z backfill job",
                  "2027-01-15T10:30:00.000Z backfill job"));
  EXPECT_THAT(FireTimes(History(once.id)), ElementsAre("2027-01-15T10:30:00.000Z scheduled job"));
  EXPECT_EQ(JobsOf().size(), 4u);
  EXPECT_EQ(Get(backfill.id).next_run_at, At("2027-01-15T10:35:00Z"));
  EXPECT_EQ(Get(once.id).next_run_at, At("2027-01-15T10:35:00Z"));
}

TEST_F(ScheduleEngineTest, TriggerEnqueuesNowAsAManualRun) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({});
  ASSERT_TRUE(Call<Schedule>(&Engine::PauseSchedule, s.id).ok());
  auto run = Call<ScheduleRun>(&Engine::TriggerSchedule, s.id);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->kind, ScheduleRunKind::kManual);
  ASSERT_TRUE(run->job_id);
  std::vector<Job> jobs = JobsOf();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, *run->job_id);
  EXPECT_FALSE(jobs[0].idempotency_key);
  // A second trigger is a second job.
  ASSERT_TRUE(Call<ScheduleRun>(&Engine::TriggerSchedule, s.id).ok());
  EXPECT_EQ(JobsOf().size(), 2u);
  EXPECT_EQ(Get(s.id).run_count, 2);
  EXPECT_EQ(Call<ScheduleRun>(&Engine::TriggerSchedule, std::string("nope")).status().code(),
            ErrorCode::kNotFound);
}

// New York springs forward on 2027-03-14: 02:30 does not exist that day.
TEST_F(ScheduleEngineTest, ADstDayFiresOnceAfterTheGap) {
  clock_.Set(At("2027-03-13T12:00:00Z"));
  Schedule s = Create({.cron_expression = "30 2 * * *", .timezone = "America/New_York"});
  EXPECT_EQ(s.next_run_at, At("2027-03-14T07:00:00Z"));  // 03:00 EDT
  RunAt("2027-03-14T07:00:00Z");
  EXPECT_EQ(JobsOf().size(), 1u);
  EXPECT_EQ(Get(s.id).next_run_at, At("2027-03-15T06:30:00Z"));  // 02:30 EDT
}

TEST_F(ScheduleEngineTest, RefusesBadRulesAndTooManySchedules) {
  auto bad_cron = Call<Schedule>(
      &Engine::CreateSchedule,
      CreateScheduleParams{.name = "x", .cron_expression = "0 0 * * FRY", .queue_name = "q"});
  EXPECT_EQ(bad_cron.status().code(), ErrorCode::kValidation);
  EXPECT_EQ(bad_cron.status().field(), "cron_expression");
  EXPECT_THAT(bad_cron.status().message(), HasSubstr("day_of_week at position 9"));
  auto bad_zone = Call<Schedule>(
      &Engine::CreateSchedule,
      CreateScheduleParams{
          .name = "x", .cron_expression = "@daily", .timezone = "Mars/Base", .queue_name = "q"});
  EXPECT_EQ(bad_zone.status().field(), "timezone");

  EngineOptions options;
  options.max_schedules = 1;
  StartEngine(options);
  Create({});
  auto second = Call<Schedule>(
      &Engine::CreateSchedule,
      CreateScheduleParams{.name = "y", .cron_expression = "@daily", .queue_name = "q"});
  EXPECT_EQ(second.status().code(), ErrorCode::kConflict);
}

TEST_F(ScheduleEngineTest, UpdateRearmsOnANewRuleAndDeleteRemovesTheHistory) {
  clock_.Set(At("2027-01-15T10:02:00Z"));
  Schedule s = Create({});
  auto updated = Call<Schedule>(&Engine::UpdateSchedule, s.id,
                                SchedulePatch{.name = "hourly", .cron_expression = "@hourly"});
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->name, "hourly");
  EXPECT_EQ(updated->next_run_at, At("2027-01-15T11:00:00Z"));
  auto bad = Call<Schedule>(&Engine::UpdateSchedule, s.id,
                            SchedulePatch{.timezone = std::string("Nowhere/Land")});
  EXPECT_EQ(bad.status().field(), "timezone");
  ASSERT_TRUE(Call<ScheduleRun>(&Engine::TriggerSchedule, s.id).ok());
  ASSERT_TRUE(CallStatus(&Engine::DeleteSchedule, s.id).ok());
  EXPECT_EQ(Call<Schedule>(&Engine::GetSchedule, s.id).status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(CallStatus(&Engine::DeleteSchedule, s.id).code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace redrive::engine::testing
