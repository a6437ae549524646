// The write share on a manual clock: the pool divided among the live nodes,
// set on the executor only when it changes, kept when the nodes cannot be
// counted, and asked again every interval whatever the answer.
#include "engine/services/write_share.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace redrive::engine {
namespace {

using namespace std::chrono_literals;

TEST(WriteShareTest, ThePoolDividedRoundedDownAndNeverLessThanOne) {
  EXPECT_EQ(WriteShare(2, 1), 2u);
  EXPECT_EQ(WriteShare(2, 2), 1u);
  EXPECT_EQ(WriteShare(2, 3), 1u);  // more nodes than connections: one each
  EXPECT_EQ(WriteShare(8, 3), 2u);  // 6 in all, not 9
  EXPECT_EQ(WriteShare(32, 4), 8u);
  EXPECT_EQ(WriteShare(4, 0), 4u);  // no count is one node: this one
  EXPECT_EQ(WriteShare(1, 1), 1u);
}

TEST(WriteShareTest, SetsTheShareWhenTheNodesChangeAndKeepsItWhenTheyCannotBeCounted) {
  const std::vector<Result<int>> nodes = {1, 3, 3, Status::Unavailable("the database is down"),
                                          2, 1};
  // The limit set at each pass, 0 where none is set: 3 nodes take 4 to 1,
  // 2 nodes to 2 and one node back to all 4.
  const std::vector<size_t> limits = {0, 1, 0, 0, 2, 4};
  size_t calls = 0;
  std::vector<size_t> set;
  WriteShareState state;
  EXPECT_EQ(state.RenderGauge(), "");  // nothing counted yet
  WriteShareService service(
      4, [&](Instant) { return nodes.at(calls++); }, [&](size_t ops) { set.push_back(ops); }, state,
      5s);
  EXPECT_EQ(service.duty(), nullptr);  // each node sets its own share
  const Instant t0 = InstantFromMicros(1'000'000);
  for (size_t i = 0; i < nodes.size(); ++i) {
    const Instant now = t0 + std::chrono::seconds(5 * i);
    const size_t before = set.size();
    ServiceRun run = service.RunOnce(now);
    EXPECT_EQ(calls, i + 1);
    ASSERT_TRUE(run.next_run.has_value()) << i;  // an error is tried again too
    EXPECT_EQ(*run.next_run, now + 5s) << i;
    if (limits[i] == 0) {
      EXPECT_EQ(set.size(), before) << i;
      EXPECT_EQ(run.changed, 0) << i;
    } else {
      ASSERT_EQ(set.size(), before + 1) << i;
      EXPECT_EQ(set.back(), limits[i]) << i;
      EXPECT_EQ(run.changed, 1) << i;
    }
  }
  EXPECT_EQ(service.share(), 4u);
  const std::string gauges = state.RenderGauge();
  EXPECT_NE(gauges.find("\nredrive_db_write_share 4\n"), std::string::npos) << gauges;
  EXPECT_NE(gauges.find("\nredrive_db_nodes 1\n"), std::string::npos) << gauges;
}

TEST(WriteShareTest, TheGaugesSayTheLastCountAndShare) {
  WriteShareState state;
  WriteShareService service(
      2, [](Instant) -> Result<int> { return 3; }, [](size_t) {}, state, 5s);
  service.RunOnce(InstantFromMicros(0));
  EXPECT_EQ(state.RenderGauge(),
            "# HELP redrive_db_write_share Write transactions this node runs at once: its share "
            "of the pool among the nodes sharing the database.\n"
            "# TYPE redrive_db_write_share gauge\nredrive_db_write_share 1\n"
            "# HELP redrive_db_nodes Nodes sharing the database, this one included, as last "
            "counted.\n# TYPE redrive_db_nodes gauge\nredrive_db_nodes 3\n");
}

}  // namespace
}  // namespace redrive::engine
