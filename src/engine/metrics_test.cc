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

}  // namespace
}  // namespace redrive::engine
