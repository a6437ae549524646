// Every metric event core's outcome table counts moves a counter of
// EngineMetrics: the table and the counter list cannot drift apart.
#include "engine/metrics.h"

#include <gtest/gtest.h>

#include "core/outcome.h"

namespace redrive::engine {
namespace {

TEST(EngineMetricsTest, EveryEventTheOutcomeTableCountsHasACounter) {
  for (const OutcomeInfo& row : OutcomeTable()) {
    for (const CountedEvent& c : row.counts) {
      if (c.event == nullptr) break;
      EngineMetrics metrics;
      TxEffects effects;
      effects.job_events[{"q", c.event, c.by_dead_reason ? "max_retries_exceeded" : ""}] = 1;
      const std::string before = metrics.Render();
      metrics.OnCommitted(effects, 1);
      const std::string after = metrics.Render();
      // The commit itself moves redrive_commits_total; the event must move
      // a counter labelled with its queue.
      EXPECT_NE(after.find("queue=\"q\""), std::string::npos)
          << row.name << " counts \"" << c.event << "\", which no counter takes";
      EXPECT_EQ(before.find("queue=\"q\""), std::string::npos);
    }
  }
}

// The claims' waiting and the completions' processing times move their
// counters (seconds) and come back, to the microsecond, in Totals().
TEST(EngineMetricsTest, JobTimesMoveTheirCountersAndTheTotals) {
  EngineMetrics metrics;
  TxEffects effects;
  effects.job_events[{"q", "claimed", ""}] = 2;
  effects.job_events[{"q", "completed", ""}] = 1;
  effects.job_times["q"] = {std::chrono::milliseconds(1500), std::chrono::microseconds(250'001)};
  metrics.OnCommitted(effects, 1);
  metrics.OnCommitted(effects, 1);
  const std::string text = metrics.Render();
  EXPECT_NE(text.find("redrive_job_wait_seconds_total{queue=\"q\"} 3"), std::string::npos) << text;
  EXPECT_NE(text.find("redrive_job_processing_seconds_total{queue=\"q\"} 0.5"), std::string::npos)
      << text;
  const JobCounts q = metrics.Totals().at("q");
  EXPECT_EQ(q.claimed, 4);
  EXPECT_EQ(q.completed, 2);
  EXPECT_EQ(q.waiting, std::chrono::seconds(3));
  EXPECT_EQ(q.processing, std::chrono::microseconds(500'002));
}

}  // namespace
}  // namespace redrive::engine
