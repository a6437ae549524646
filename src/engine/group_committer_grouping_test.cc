// The group committer's choice of each transaction's ops (TakeGroup):
// requests' ops together, background duties' ops apart, alternating when
// both wait, each kind in its order.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/group_committer.h"

namespace redrive::engine {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// An op that says its name when answered, for the assertions.
std::vector<std::string>* said = nullptr;

WriteOp Op(const std::string& name, bool background) {
  WriteOp op;
  op.run = [](store::WriteTx&, TxContext&) { return Status::Ok(); };
  op.after = [name](Status) { said->push_back(name); };
  op.background = background;
  return op;
}

std::vector<std::string> Names(std::deque<WriteOp>& ops) {
  std::vector<std::string> out;
  said = &out;
  for (WriteOp& op : ops) op.after(Status::Ok());
  said = nullptr;
  return out;
}

TEST(TakeGroupTest, RequestsGoFirstAndABackgroundOpWaitsOneGroupAtMost) {
  std::deque<WriteOp> queue;
  queue.push_back(Op("r1", false));
  queue.push_back(Op("batch", true));
  queue.push_back(Op("r2", false));
  bool owed = false;
  std::deque<WriteOp> group;
  TakeGroup(queue, 100, owed, group);
  EXPECT_THAT(Names(group), ElementsAre("r1", "r2"));
  EXPECT_TRUE(owed);
  // Requests keep arriving: the waiting batch still goes next, alone.
  queue.push_back(Op("r3", false));
  group.clear();
  TakeGroup(queue, 100, owed, group);
  EXPECT_THAT(Names(group), ElementsAre("batch"));
  EXPECT_FALSE(owed);
  group.clear();
  TakeGroup(queue, 100, owed, group);
  EXPECT_THAT(Names(group), ElementsAre("r3"));
  EXPECT_THAT(queue, IsEmpty());
}

TEST(TakeGroupTest, BackgroundOpsAloneGoTogetherInOrder) {
  std::deque<WriteOp> queue;
  queue.push_back(Op("sweep", true));
  queue.push_back(Op("batch", true));
  bool owed = false;
  std::deque<WriteOp> group;
  TakeGroup(queue, 100, owed, group);
  EXPECT_THAT(Names(group), ElementsAre("sweep", "batch"));
  EXPECT_FALSE(owed);
  EXPECT_THAT(queue, IsEmpty());
}

TEST(TakeGroupTest, RequestsAloneAreOneGroupUpToTheMaximum) {
  std::deque<WriteOp> queue;
  for (const char* n : {"r1", "r2", "r3"}) queue.push_back(Op(n, false));
  bool owed = false;
  std::deque<WriteOp> group;
  TakeGroup(queue, 2, owed, group);
  EXPECT_THAT(Names(group), ElementsAre("r1", "r2"));
  EXPECT_FALSE(owed);  // nothing in the background waits
  EXPECT_THAT(Names(queue), ElementsAre("r3"));
}

TEST(TakeGroupTest, AFullGroupOfRequestsStillOwesTheWaitingBackground) {
  std::deque<WriteOp> queue;
  queue.push_back(Op("r1", false));
  queue.push_back(Op("r2", false));
  queue.push_back(Op("batch", true));
  queue.push_back(Op("r3", false));
  bool owed = false;
  std::deque<WriteOp> group;
  TakeGroup(queue, 2, owed, group);
  EXPECT_THAT(Names(group), ElementsAre("r1", "r2"));
  EXPECT_TRUE(owed);
  EXPECT_THAT(Names(queue), ElementsAre("batch", "r3"));
  group.clear();
  TakeGroup(queue, 2, owed, group);
  EXPECT_THAT(Names(group), ElementsAre("batch"));
}

}  // namespace
}  // namespace redrive::engine
