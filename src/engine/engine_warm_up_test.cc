// Engine::WarmUp on both write executors: the write path runs, and rolls
// back without a trace.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/engine_test_util.h"

namespace redrive::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

class WarmUpTest : public testing::EngineByExecutorTest {};

std::vector<std::string> EventTypes(const std::vector<HistoryEntry>& h) {
  std::vector<std::string> out;
  for (const auto& e : h) out.push_back(e.event_type);
  return out;
}

// WarmUp runs the requests' write path six times on each connection the
// writer uses at once and rolls it back: nothing of it is seen, and the
// engine serves as before.
TEST_P(WarmUpTest, WarmUpRunsTheWritePathAndLeavesNothingBehind) {
  const int begins = pooled_ ? fault_store_->begins() : 0;
  const int claim_reads = pooled_ ? fault_store_->claim_reads() : 0;
  const int inserts = pooled_ ? fault_store_->insert_batches() : 0;
  ASSERT_TRUE(engine_->WarmUp().ok());
  if (pooled_) {
    // Four connections (the FaultStore's), six rounds: 24 transactions,
    // each with two enqueues and two claims.
    EXPECT_GE(fault_store_->begins() - begins, 24);
    EXPECT_EQ(fault_store_->claim_reads() - claim_reads, 48);
    EXPECT_EQ(fault_store_->insert_batches() - inserts, 48);
  }
  auto queues = Call<std::vector<QueueView>>(&Engine::ListQueues);
  ASSERT_TRUE(queues.ok()) << queues.status().ToString();
  EXPECT_TRUE(queues->empty());
  auto metrics = Call<std::string>(&Engine::ScrapeMetrics);
  ASSERT_TRUE(metrics.ok());
  EXPECT_THAT(*metrics, Not(HasSubstr("warm-up")));

  const std::string id = Enqueue("emails");
  auto jobs = Claim("emails");
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].id, id);
  Status st =
      CallStatus(&Engine::Complete, CompleteParams{id, "w1", *jobs[0].lease_id, std::nullopt});
  ASSERT_TRUE(st.ok()) << st.ToString();
  queues = Call<std::vector<QueueView>>(&Engine::ListQueues);
  ASSERT_TRUE(queues.ok());
  ASSERT_EQ(queues->size(), 1u);
  EXPECT_EQ((*queues)[0].config.queue_name, "emails");
  auto history = Call<std::vector<HistoryEntry>>(&Engine::History, std::string(id));
  ASSERT_TRUE(history.ok());
  EXPECT_THAT(EventTypes(*history), ElementsAre("created", "processing", "completed"));
}

// A stopped engine warms nothing up.
TEST_P(WarmUpTest, WarmUpOfAStoppedEngineIsRefused) {
  engine_->Stop();
  EXPECT_EQ(engine_->WarmUp().code(), ErrorCode::kUnavailable);
}

INSTANTIATE_TEST_SUITE_P(Executors, WarmUpTest, testing::kBothExecutors, testing::ExecutorTestName);

}  // namespace
}  // namespace redrive::engine
