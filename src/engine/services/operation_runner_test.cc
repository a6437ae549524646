// The operation runner's batch sizing: each batch sized from the last one's
// time so that one runs about `batch_time` (the whole runner is exercised in
// engine_operations_test.cc with the manual clock).
#include "engine/services/operation_runner.h"

#include <gtest/gtest.h>

namespace redrive::engine::operation_ops {
namespace {

Micros Us(int64_t n) { return Micros(n); }

TEST(NextBatchSizeTest, AimsAtTheTargetTime) {
  // 500 jobs in 16 ms, 2 ms wanted: halved (at most half in one step).
  EXPECT_EQ(NextBatchSize(500, Us(16'000), Us(2'000), 500), 250);
  // 100 jobs in 2.5 ms: 80 would take 2 ms.
  EXPECT_EQ(NextBatchSize(100, Us(2'500), Us(2'000), 500), 80);
  // Faster than wanted: grows, at most twice in one step, up to the maximum.
  EXPECT_EQ(NextBatchSize(100, Us(1'600), Us(2'000), 500), 125);
  EXPECT_EQ(NextBatchSize(100, Us(100), Us(2'000), 500), 200);
  EXPECT_EQ(NextBatchSize(400, Us(100), Us(2'000), 500), 500);
}

TEST(NextBatchSizeTest, ConvergesAndStaysWithinItsBounds) {
  // A steady 25 µs per job: from 500 down to 2 ms' worth (80) in a few steps.
  int size = 500;
  for (int i = 0; i < 10; ++i) size = NextBatchSize(size, Us(25 * size), Us(2'000), 500);
  EXPECT_EQ(size, 80);
  // Very slow jobs: never below the floor.
  size = 500;
  for (int i = 0; i < 20; ++i) size = NextBatchSize(size, Us(10'000 * size), Us(2'000), 500);
  EXPECT_EQ(size, kMinOperationBatch);
  // A maximum below the floor wins.
  EXPECT_EQ(NextBatchSize(4, Us(1'000'000), Us(2'000), 4), 4);
}

TEST(NextBatchSizeTest, ZeroTargetKeepsTheMaximumAndZeroTimeGrows) {
  EXPECT_EQ(NextBatchSize(100, Us(16'000), Us(0), 500), 500);
  // The manual clock: a batch takes no time.
  EXPECT_EQ(NextBatchSize(100, Us(0), Us(2'000), 500), 200);
  EXPECT_EQ(NextBatchSize(500, Us(0), Us(2'000), 500), 500);
}

}  // namespace
}  // namespace redrive::engine::operation_ops
