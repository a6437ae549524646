// Conformance: what nodes sharing a store record about themselves — the node
// that wrote each history entry.
#include "store_conformance.h"

namespace redrive::store::testing {
namespace {

using ::testing::ElementsAre;

HistoryEntry Entry(const Job& job, const std::string& event, std::optional<std::string> worker,
                   Instant at, std::optional<std::string> node_id) {
  HistoryEntry h{HistoryId(job.id + "/" + event), job.id, event, std::move(worker), "{}", at};
  h.node_id = std::move(node_id);
  return h;
}

std::vector<std::optional<std::string>> NodeIds(ReadTx& tx, const std::string& job_id) {
  auto history = tx.GetHistory(job_id);
  EXPECT_TRUE(history.ok()) << history.status().ToString();
  std::vector<std::optional<std::string>> out;
  if (history.ok()) {
    for (const HistoryEntry& h : *history) out.push_back(h.node_id);
  }
  return out;
}

// Every way a history entry is written (InsertJob, InsertJobs, ApplyChange,
// ApplyChanges) stores the node id it carries, and an entry without one
// reads back without one.
TEST_P(StoreConformanceTest, HistoryEntriesKeepTheNodeThatWroteThem) {
  Job one = MakeJob("one");
  Job two = MakeJob("two");
  Job three = MakeJob("three");
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.InsertJob(one, Entry(one, "created", {}, T(0), "node-a")).ok());
    auto batch = tx.InsertJobs({NewJob{two, Entry(two, "created", {}, T(0), "node-b")},
                                NewJob{three, Entry(three, "created", {}, T(0), std::nullopt)}});
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  });
  Write([&](WriteTx& tx) {
    Change claim;
    claim.before = one;
    claim.after = AsProcessing(one, "w1", "lease-1", T(31));
    claim.after.updated_at = T(1);
    claim.history = Entry(one, "processing", "w1", T(1), "node-b");
    ASSERT_TRUE(tx.ApplyChange(claim).ok());

    Change cancel;
    cancel.before = two;
    cancel.after = AsCancelled(two, T(2));
    cancel.history = Entry(two, "cancelled", {}, T(2), "node-c");
    auto applied = tx.ApplyChanges({cancel});
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    EXPECT_THAT(*applied, ElementsAre(true));
  });
  auto tx = BeginRead();
  EXPECT_THAT(NodeIds(*tx, "one"), ElementsAre("node-a", "node-b"));
  EXPECT_THAT(NodeIds(*tx, "two"), ElementsAre("node-b", "node-c"));
  EXPECT_THAT(NodeIds(*tx, "three"), ElementsAre(std::nullopt));
}

}  // namespace
}  // namespace redrive::store::testing
