// The checkpointer's choice after each commit (Checkpointer::Next): under
// steady writes the WAL restarts once a background checkpoint has copied all
// but a few frames (the writer copies those), instead of growing to the hard
// limit with a checkpoint started after every commit.
#include "store/sqlite/checkpointer.h"

#include <gtest/gtest.h>

namespace redrive::store::sqlite {
namespace {

using After = Checkpointer::AfterCommit;
constexpr int kThreshold = Checkpointer::kCheckpointPages;
constexpr int kFew = Checkpointer::kCatchUpPages;

TEST(CheckpointerTest, PastTheThresholdABackgroundCheckpointStartsUnlessOneIsCopying) {
  EXPECT_EQ(Checkpointer::Next(kThreshold - 1, false, 0, 0), After::kForget);
  EXPECT_EQ(Checkpointer::Next(kThreshold, false, 0, 0), After::kBackground);
  EXPECT_EQ(Checkpointer::Next(kThreshold + 100, true, 0, 0), After::kNothing);
  EXPECT_EQ(Checkpointer::Next(Checkpointer::kWriterTakesOverPages, true, 0, 0), After::kWriter);
}

TEST(CheckpointerTest, TheWriterCopiesTheFewFramesABackgroundCheckpointLeft) {
  // The last background checkpoint copied 4,100 frames.
  EXPECT_EQ(Checkpointer::Next(4100 + 1, false, 4100, 0), After::kCatchUp);
  EXPECT_EQ(Checkpointer::Next(4100 + kFew, false, 4100, 0), After::kCatchUp);
  // Too many left: another background checkpoint first.
  EXPECT_EQ(Checkpointer::Next(4100 + kFew + 1, false, 4100, 0), After::kBackground);
  // Not while one copies.
  EXPECT_EQ(Checkpointer::Next(4100 + 1, true, 4100, 0), After::kNothing);
}

TEST(CheckpointerTest, ACountOfAnEarlierWalOrAFailedCatchUpStartsNoCatchUp) {
  // A copied count above the WAL's frames is one of the WAL before a restart.
  EXPECT_EQ(Checkpointer::Next(kThreshold + 10, false, kThreshold + 200, 0), After::kBackground);
  // After a catch-up that could not copy everything, none until the WAL has
  // grown by another threshold.
  const int failed_at = 4200;
  EXPECT_EQ(Checkpointer::Next(4300, false, 4250, failed_at + kThreshold), After::kBackground);
  EXPECT_EQ(Checkpointer::Next(failed_at + kThreshold, false, failed_at + kThreshold - 10,
                               failed_at + kThreshold),
            After::kCatchUp);
}

}  // namespace
}  // namespace redrive::store::sqlite
