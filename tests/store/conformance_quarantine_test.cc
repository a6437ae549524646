// Conformance: crash counts, the quarantined status and snooze counters are
// stored, guarded, counted and listed like every other field and status.
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;

// `held` (processing) lost its lease at `now` a crash too many.
Change QuarantineChange(const Job& held, Instant now) {
  Change c;
  c.before = held;
  c.after = held;
  c.after.status = JobStatus::kQuarantined;
  c.after.assigned_worker_id.reset();
  c.after.lease_id.reset();
  c.after.lease_expires_at.reset();
  c.after.crash_count = held.crash_count + 1;
  c.after.lease_expiries = held.lease_expiries + 1;
  c.after.last_error = "lease expired";
  c.after.completed_at = now;
  c.after.updated_at = now;
  c.outcome = Outcome::kLeaseLostQuarantined;
  c.history = HistoryEntry{
      HistoryId(held.id + "/quarantined"), held.id, "quarantined", held.assigned_worker_id,
      R"({"reason":"crash_limit"})",       now};
  return c;
}

Change ReleaseChange(const Job& quarantined, Instant now) {
  Change c;
  c.before = quarantined;
  c.after = quarantined;
  c.after.status = JobStatus::kPending;
  c.after.crash_count = 0;
  c.after.retry_count = 0;
  c.after.last_error.reset();
  c.after.completed_at.reset();
  c.after.scheduled_at = now;
  c.after.updated_at = now;
  c.outcome = Outcome::kReleasedFromQuarantine;
  c.history = HistoryEntry{HistoryId(quarantined.id + "/released"),
                           quarantined.id,
                           "quarantine_released",
                           std::nullopt,
                           "{}",
                           now};
  return c;
}

TEST_P(StoreConformanceTest, CrashAndSnoozeCountersAreStoredAsGiven) {
  Job job = MakeJob("counters");
  job.crash_count = 2;
  job.crash_limit = 0;
  job.snooze_count = 4;
  job.max_snoozes = 1000;
  Insert({job});
  EXPECT_EQ(Get(job.id), job) << DebugString(Get(job.id));
}

TEST_P(StoreConformanceTest, AQuarantinedJobIsWrittenCountedListedAndReleased) {
  Job held = AsProcessing(MakeJob("poison", "payments"), "w1", "lease-3", T(30));
  held.crash_count = 2;
  held.crash_limit = 3;
  Insert({held, MakeJob("fine", "payments")});
  Change quarantine = QuarantineChange(held, T(31));
  Write([&](WriteTx& tx) {
    Status st = tx.ApplyChange(quarantine);
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  Job got = Get(held.id);
  EXPECT_EQ(got, quarantine.after) << DebugString(got);

  auto tx = BeginRead();
  auto counts = tx->CountJobs("payments");
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->quarantined, 1);
  EXPECT_EQ(counts->pending, 1);
  EXPECT_EQ(counts->deadletter, 0);
  EXPECT_EQ(tx->CountJobs(std::nullopt)->quarantined, 1);
  JobFilter f;
  f.status = JobStatus::kQuarantined;
  auto listed = tx->ListJobs(f, false);
  ASSERT_TRUE(listed.ok());
  EXPECT_THAT(Ids(*listed), ElementsAre("poison"));
  auto dead = tx->ListDeadLetters(JobFilter{});
  ASSERT_TRUE(dead.ok());
  EXPECT_TRUE(dead->empty());  // the DLQ is apart
  tx.reset();

  // A stale quarantine (the job moved on) is refused by the guard.
  Write([&](WriteTx& w) { EXPECT_EQ(w.ApplyChange(quarantine).code(), ErrorCode::kConflict); });
  Change release = ReleaseChange(got, T(40));
  Write([&](WriteTx& w) {
    Status st = w.ApplyChange(release);
    EXPECT_TRUE(st.ok()) << st.ToString();
  });
  EXPECT_EQ(Get(held.id), release.after) << DebugString(Get(held.id));
  auto history = BeginRead()->GetHistory(held.id);
  ASSERT_TRUE(history.ok());
  std::vector<std::string> events;
  for (const HistoryEntry& h : *history) events.push_back(h.event_type);
  EXPECT_THAT(events, ElementsAre("created", "quarantined", "quarantine_released"));
}

}  // namespace
}  // namespace redrive::store::testing
