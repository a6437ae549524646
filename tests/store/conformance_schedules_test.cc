// Conformance: schedules (cron jobs) and the history of their runs.
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Schedule MakeSchedule(const std::string& id, Instant created = T(0),
                      std::optional<Instant> next = T(100)) {
  Schedule s;
  s.id = id;
  s.name = "nightly " + id;
  s.cron_expression = "0 3 * * *";
  s.timezone = "Europe/Berlin";
  s.queue_name = "reports";
  s.payload_template = R"({"report":"daily"})";
  s.priority = 5;
  s.max_retries = 2;
  s.timeout_seconds = 60;
  s.tags = {{"team", "billing"}};
  s.metadata = R"({"owner":"ops"})";
  s.next_run_at = next;
  s.created_at = created;
  s.updated_at = created;
  return s;
}

ScheduleRun MakeRun(const std::string& id, const std::string& schedule_id, Instant created) {
  ScheduleRun r;
  r.id = id;
  r.schedule_id = schedule_id;
  r.fire_time = created;
  r.job_id = "job-" + id;
  r.created_at = created;
  return r;
}

std::vector<std::string> ScheduleIds(const std::vector<Schedule>& schedules) {
  std::vector<std::string> out;
  for (const Schedule& s : schedules) out.push_back(s.id);
  return out;
}

std::vector<std::string> RunIds(const std::vector<ScheduleRun>& runs) {
  std::vector<std::string> out;
  for (const ScheduleRun& r : runs) out.push_back(r.id);
  return out;
}

TEST_P(StoreConformanceTest, ScheduleRoundTripsEveryField) {
  Schedule s = MakeSchedule("s1");
  s.description = "the nightly report";
  s.missed_run_policy = MissedRunPolicy::kBackfill;
  s.overlap_policy = OverlapPolicy::kCancelPrevious;
  s.backfill_limit = 7;
  s.last_run_at = T(50);
  s.last_job_id = "job-9";
  s.run_count = 12;
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertSchedule(s).ok()); });
  Result<Schedule> got = BeginRead()->GetSchedule("s1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, s);
  EXPECT_EQ(BeginRead()->GetSchedule("nope").status().code(), ErrorCode::kNotFound);
  Write([&](WriteTx& tx) {
    Result<Schedule> locked = tx.GetSchedule("s1");
    ASSERT_TRUE(locked.ok());
    EXPECT_EQ(*locked, s);
  });
}

TEST_P(StoreConformanceTest, SchedulesListOldestFirstWithFiltersAndCount) {
  Schedule a = MakeSchedule("a", T(2));
  Schedule b = MakeSchedule("b", T(1));
  b.queue_name = "emails";
  Schedule c = MakeSchedule("c", T(3), std::nullopt);
  c.is_active = false;
  Write([&](WriteTx& tx) {
    for (const Schedule& s : {a, b, c}) ASSERT_TRUE(tx.InsertSchedule(s).ok());
  });
  auto read = BeginRead();
  EXPECT_EQ(*read->CountSchedules(), 3);
  EXPECT_THAT(ScheduleIds(*read->ListSchedules({})), ElementsAre("b", "a", "c"));
  EXPECT_THAT(ScheduleIds(*read->ListSchedules({.is_active = true})), ElementsAre("b", "a"));
  EXPECT_THAT(ScheduleIds(*read->ListSchedules({.is_active = false})), ElementsAre("c"));
  EXPECT_THAT(ScheduleIds(*read->ListSchedules({.queue_name = "reports"})), ElementsAre("a", "c"));
  EXPECT_THAT(ScheduleIds(*read->ListSchedules({.limit = 1, .offset = 1})), ElementsAre("a"));
}

TEST_P(StoreConformanceTest, UpdateScheduleReplacesEveryFieldAndDeleteRemovesItsRuns) {
  Schedule s = MakeSchedule("s1");
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertSchedule(s).ok());
    ASSERT_TRUE(tx.InsertScheduleRun(MakeRun("r1", "s1", T(10))).ok());
  });
  s.name = "renamed";
  s.description = std::nullopt;
  s.cron_expression = "@hourly";
  s.is_active = false;
  s.next_run_at = std::nullopt;
  s.tags = {};
  s.run_count = 1;
  s.last_job_id = "job-r1";
  s.updated_at = T(20);
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.UpdateSchedule(s).ok()); });
  EXPECT_EQ(*BeginRead()->GetSchedule("s1"), s);

  Schedule missing = MakeSchedule("missing");
  Write([&](WriteTx& tx) {
    EXPECT_EQ(tx.UpdateSchedule(missing).code(), ErrorCode::kNotFound);
    EXPECT_EQ(tx.DeleteSchedule("missing").code(), ErrorCode::kNotFound);
    ASSERT_TRUE(tx.DeleteSchedule("s1").ok());
  });
  EXPECT_EQ(BeginRead()->GetSchedule("s1").status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(*BeginRead()->ListScheduleRuns("s1", 10, 0), IsEmpty());
  EXPECT_EQ(*BeginRead()->CountSchedules(), 0);
}

TEST_P(StoreConformanceTest, DueSchedulesAreActiveOnesByNextRunEarliestFirst) {
  Schedule late = MakeSchedule("late", T(0), T(30));
  Schedule early = MakeSchedule("early", T(0), T(10));
  Schedule future = MakeSchedule("future", T(0), T(500));
  Schedule paused = MakeSchedule("paused", T(0), std::nullopt);
  paused.is_active = false;
  Write([&](WriteTx& tx) {
    for (const Schedule& s : {late, early, future, paused}) {
      ASSERT_TRUE(tx.InsertSchedule(s).ok());
    }
  });
  EXPECT_EQ(*BeginRead()->NextScheduleDue(), T(10));
  Write([&](WriteTx& tx) {
    EXPECT_THAT(ScheduleIds(*tx.SelectDueSchedules(T(30), 10)), ElementsAre("early", "late"));
    EXPECT_THAT(ScheduleIds(*tx.SelectDueSchedules(T(30), 1)), ElementsAre("early"));
    EXPECT_THAT(*tx.SelectDueSchedules(T(9), 10), IsEmpty());
  });
}

TEST_P(StoreConformanceTest, NoActiveScheduleMeansNoNextDue) {
  EXPECT_EQ(*BeginRead()->NextScheduleDue(), std::nullopt);
  Schedule paused = MakeSchedule("paused", T(0), std::nullopt);
  paused.is_active = false;
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertSchedule(paused).ok()); });
  EXPECT_EQ(*BeginRead()->NextScheduleDue(), std::nullopt);
}

TEST_P(StoreConformanceTest, AnInactiveScheduleCannotHaveANextRun) {
  Schedule bad = MakeSchedule("bad", T(0), T(10));
  bad.is_active = false;
  EXPECT_FALSE(BeginWrite()->InsertSchedule(bad).ok());  // rolled back
}

TEST_P(StoreConformanceTest, ScheduleRunsListNewestFirstWithEveryField) {
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertSchedule(MakeSchedule("s1")).ok()); });
  ScheduleRun skipped = MakeRun("r2", "s1", T(20));
  skipped.job_id = std::nullopt;
  skipped.error = "skipped: job job-r1 is still processing";
  ScheduleRun manual = MakeRun("r3", "s1", T(30));
  manual.kind = ScheduleRunKind::kManual;
  ScheduleRun backfill = MakeRun("r4", "s1", T(40));
  backfill.kind = ScheduleRunKind::kBackfill;
  backfill.fire_time = T(5);
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertScheduleRun(MakeRun("r1", "s1", T(10))).ok());
    ASSERT_TRUE(tx.InsertScheduleRun(skipped).ok());
    ASSERT_TRUE(tx.InsertScheduleRun(manual).ok());
    ASSERT_TRUE(tx.InsertScheduleRun(backfill).ok());
  });
  auto runs = BeginRead()->ListScheduleRuns("s1", 10, 0);
  ASSERT_TRUE(runs.ok()) << runs.status().ToString();
  EXPECT_THAT(RunIds(*runs), ElementsAre("r4", "r3", "r2", "r1"));
  EXPECT_EQ((*runs)[0], backfill);
  EXPECT_EQ((*runs)[1], manual);
  EXPECT_EQ((*runs)[2], skipped);
  EXPECT_THAT(RunIds(*BeginRead()->ListScheduleRuns("s1", 2, 1)), ElementsAre("r3", "r2"));
  EXPECT_THAT(*BeginRead()->ListScheduleRuns("other", 10, 0), IsEmpty());
}

TEST_P(StoreConformanceTest, RunsOfOneTransactionListLatestFireTimeFirst) {
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.InsertSchedule(MakeSchedule("s1")).ok()); });
  ScheduleRun older = MakeRun("z-older", "s1", T(10));
  older.fire_time = T(1);
  ScheduleRun newer = MakeRun("a-newer", "s1", T(10));
  newer.fire_time = T(2);
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertScheduleRun(older).ok());
    ASSERT_TRUE(tx.InsertScheduleRun(newer).ok());
  });
  EXPECT_THAT(RunIds(*BeginRead()->ListScheduleRuns("s1", 10, 0)),
              ElementsAre("a-newer", "z-older"));
}

TEST_P(StoreConformanceTest, RunRetentionKeepsTheNewestOfEachScheduleAndNothingTooOld) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertSchedule(MakeSchedule("s1")).ok());
    ASSERT_TRUE(tx.InsertSchedule(MakeSchedule("s2")).ok());
    for (int i = 1; i <= 5; ++i) {
      ASSERT_TRUE(tx.InsertScheduleRun(MakeRun("a" + std::to_string(i), "s1", T(10 * i))).ok());
    }
    ASSERT_TRUE(tx.InsertScheduleRun(MakeRun("b1", "s2", T(5))).ok());
    ASSERT_TRUE(tx.InsertScheduleRun(MakeRun("b2", "s2", T(45))).ok());
  });
  long long deleted = 0;
  // Keep 3 per schedule, none created before T(8): a1, a2 (beyond the
  // newest 3 of s1) and b1 (too old) go; at most 2 per call.
  Write([&](WriteTx& tx) {
    auto n = tx.DeleteOldScheduleRuns(3, T(8), 2);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    deleted = *n;
  });
  EXPECT_EQ(deleted, 2);
  Write([&](WriteTx& tx) {
    auto n = tx.DeleteOldScheduleRuns(3, T(8), 2);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    deleted = *n;
  });
  EXPECT_EQ(deleted, 1);
  EXPECT_THAT(RunIds(*BeginRead()->ListScheduleRuns("s1", 10, 0)), ElementsAre("a5", "a4", "a3"));
  EXPECT_THAT(RunIds(*BeginRead()->ListScheduleRuns("s2", 10, 0)), ElementsAre("b2"));
  Write([&](WriteTx& tx) { EXPECT_EQ(*tx.DeleteOldScheduleRuns(3, T(8), 2), 0); });
}

TEST_P(StoreConformanceTest, ARunNeedsItsSchedule) {
  EXPECT_FALSE(BeginWrite()->InsertScheduleRun(MakeRun("r1", "ghost", T(1))).ok());
}

}  // namespace
}  // namespace redrive::store::testing
