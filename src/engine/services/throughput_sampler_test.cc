#include "engine/services/throughput_sampler.h"

#include <gtest/gtest.h>

#include "core/clock.h"

namespace redrive::engine {
namespace {

using std::chrono::seconds;

// A start exactly on a 10 s boundary plus 3 s, so the buckets are visible.
const Instant kStart = InstantFromMicros(1'800'000'000'000'000) + seconds(3);

class ThroughputSamplerTest : public ::testing::Test {
 protected:
  // One committed batch with `n` events `event` in `queue`.
  void Commit(const std::string& queue, const std::string& event, long long n,
              const std::string& reason = "") {
    TxEffects effects;
    effects.job_events[{queue, event, reason}] = n;
    metrics_.OnCommitted(effects, 1);
  }
  ServiceRun RunAt(Instant t) {
    clock_.Set(t);
    return sampler_.RunOnce(clock_.Now());
  }

  // The recorded samples' counts for one queue (or all), oldest first.
  std::vector<ThroughputPoint> Points(const std::optional<std::string>& queue) const {
    std::vector<ThroughputPoint> out;
    for (const ThroughputSample& s : samples_) {
      ThroughputPoint p{s.at, {}};
      for (const auto& [name, counts] : s.per_queue) {
        if (!queue || *queue == name) p.counts += counts;
      }
      out.push_back(p);
    }
    return out;
  }

  ManualClock clock_{kStart};
  EngineMetrics metrics_;
  std::vector<ThroughputSample> samples_;
  Status fail_with_ = Status::Ok();  // what the recorder answers
  ThroughputSampler sampler_{metrics_, "node-a", seconds(10), [this](const ThroughputSample& s) {
                               if (!fail_with_.ok()) return fail_with_;
                               samples_.push_back(s);
                               return Status::Ok();
                             }};
};

// The engine's counts start at zero with the engine: what happened before
// the sampler's first pass (a node's first requests beat its background loop
// on a loaded machine) is in the first point, not lost.
TEST_F(ThroughputSamplerTest, FirstPassAsksForTheNextBoundaryAndLosesNothingBeforeIt) {
  Commit("q", "enqueued", 5);  // before the sampler's first pass
  ServiceRun run = RunAt(kStart);
  EXPECT_EQ(run.changed, 0);
  EXPECT_FALSE(run.more);
  ASSERT_TRUE(run.next_run);
  EXPECT_EQ(*run.next_run, kStart + seconds(7));
  EXPECT_TRUE(Points(std::nullopt).empty());
  RunAt(kStart + seconds(7));
  ASSERT_EQ(Points("q").size(), 1u);
  EXPECT_EQ(Points("q")[0].counts.enqueued, 5);
}

TEST_F(ThroughputSamplerTest, EachIntervalHoldsExactlyItsOwnEvents) {
  RunAt(kStart);
  Commit("q", "enqueued", 4);
  Commit("q", "completed", 2);
  Commit("other", "failed", 1);
  // Early call: nothing recorded, same next run.
  EXPECT_EQ(*RunAt(kStart + seconds(5)).next_run, kStart + seconds(7));
  EXPECT_TRUE(Points(std::nullopt).empty());

  EXPECT_EQ(*RunAt(kStart + seconds(7)).next_run, kStart + seconds(17));
  Commit("q", "deadlettered", 3, "max_retries_exceeded");
  Commit("q", "deadlettered", 1, "expired");
  Commit("q", "claimed", 9);  // not charted, but kept in the hourly totals
  RunAt(kStart + seconds(17));

  auto q = Points("q");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].at, kStart + seconds(7));
  EXPECT_EQ(q[0].counts, (JobCounts{4, 2, 0, 0}));
  EXPECT_EQ(q[1].at, kStart + seconds(17));
  EXPECT_EQ(q[1].counts, (JobCounts{0, 0, 0, 4, 9}));

  auto all = Points(std::nullopt);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].counts, (JobCounts{4, 2, 1, 0}));

  auto unknown = Points("nope");
  ASSERT_EQ(unknown.size(), 2u);
  EXPECT_EQ(unknown[0].counts, JobCounts{});
}

// The hourly totals' times come from the same counters as /metrics: what
// each interval's claims waited and its completions took, per queue.
TEST_F(ThroughputSamplerTest, EachIntervalCarriesItsClaimsWaitingAndProcessingTimes) {
  RunAt(kStart);
  TxEffects effects;
  effects.job_events[{"q", "claimed", ""}] = 2;
  effects.job_events[{"q", "completed", ""}] = 1;
  effects.job_times["q"] = {std::chrono::milliseconds(1500), std::chrono::milliseconds(250)};
  metrics_.OnCommitted(effects, 1);
  RunAt(kStart + seconds(7));
  effects.job_times["q"] = {std::chrono::milliseconds(500), std::chrono::microseconds(1)};
  metrics_.OnCommitted(effects, 1);
  RunAt(kStart + seconds(17));

  auto q = Points("q");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].counts.claimed, 2);
  EXPECT_EQ(q[0].counts.waiting, std::chrono::milliseconds(1500));
  EXPECT_EQ(q[0].counts.processing, std::chrono::milliseconds(250));
  EXPECT_EQ(q[1].counts.claimed, 2);
  EXPECT_EQ(q[1].counts.waiting, std::chrono::milliseconds(500));
  EXPECT_EQ(q[1].counts.processing, std::chrono::microseconds(1));
}

TEST_F(ThroughputSamplerTest, QuietIntervalsAreRecordedWithNoQueues) {
  RunAt(kStart);
  Commit("q", "enqueued", 1);
  RunAt(kStart + seconds(7));
  RunAt(kStart + seconds(17));
  ASSERT_EQ(samples_.size(), 2u);
  EXPECT_EQ(samples_[0].node_id, "node-a");
  EXPECT_EQ(samples_[0].per_queue.size(), 1u);
  EXPECT_TRUE(samples_[1].per_queue.empty());  // q did nothing: no row for it
  EXPECT_EQ(samples_[1].at, kStart + seconds(17));
}

// A sample the store refused is not lost: the next one carries its counts.
TEST_F(ThroughputSamplerTest, AFailedRecordLeavesItsCountsToTheNextSample) {
  RunAt(kStart);
  Commit("q", "completed", 2);
  fail_with_ = Status::Unavailable("database down");
  EXPECT_EQ(*RunAt(kStart + seconds(7)).next_run, kStart + seconds(17));
  EXPECT_TRUE(samples_.empty());
  fail_with_ = Status::Ok();
  Commit("q", "completed", 1);
  RunAt(kStart + seconds(17));
  auto points = Points("q");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].at, kStart + seconds(17));
  EXPECT_EQ(points[0].counts.completed, 3);
}

TEST_F(ThroughputSamplerTest, ALatePassPutsEverythingSinceTheLastSampleInOnePoint) {
  RunAt(kStart);
  Commit("q", "completed", 6);
  ServiceRun run = RunAt(kStart + seconds(31));  // three boundaries late
  EXPECT_EQ(*run.next_run, kStart + seconds(37));
  auto points = Points("q");
  ASSERT_EQ(points.size(), 1u);
  EXPECT_EQ(points[0].at, kStart + seconds(7));
  EXPECT_EQ(points[0].counts.completed, 6);
}

}  // namespace
}  // namespace redrive::engine
