// Conformance: what nodes sharing a store record about themselves — the node
// that wrote each history entry, and each node's throughput samples, which
// add up to the cluster's history.
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

ThroughputSample Sample(const std::string& node, Instant at,
                        std::map<std::string, JobCounts> per_queue) {
  return ThroughputSample{node, at, std::move(per_queue)};
}

std::vector<ThroughputPoint> Throughput(ReadTx& tx, const std::optional<std::string>& queue,
                                        Instant after) {
  auto points = tx.ReadThroughput(queue, after);
  EXPECT_TRUE(points.ok()) << points.status().ToString();
  return points.ok() ? *points : std::vector<ThroughputPoint>{};
}

// Two nodes writing the same interval add up; a node writing an interval
// again (restarted within it) adds to its own rows; a quiet sample still
// makes a point; one queue reads only its rows.
TEST_P(StoreConformanceTest, ThroughputSamplesOfEveryNodeAddUpPerInterval) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", T(10),
                                           {{"emails", {3, 1, 0, 0}}, {"reports", {1, 0, 2, 1}}}))
                    .ok());
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-b", T(10), {{"emails", {2, 2, 1, 0}}})).ok());
  });
  // One transaction each, as nodes write them.
  Write([&](WriteTx& tx) { ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", T(20), {})).ok()); });
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", T(10), {{"emails", {1, 0, 0, 0}}})).ok());
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-b", T(30), {{"reports", {0, 5, 0, 0}}})).ok());
  });

  auto tx = BeginRead();
  EXPECT_THAT(Throughput(*tx, std::nullopt, T(0)),
              ElementsAre(ThroughputPoint{T(10), {7, 3, 3, 1}}, ThroughputPoint{T(20), {}},
                          ThroughputPoint{T(30), {0, 5, 0, 0}}));
  EXPECT_THAT(Throughput(*tx, "emails", T(0)),
              ElementsAre(ThroughputPoint{T(10), {6, 3, 1, 0}}, ThroughputPoint{T(20), {}},
                          ThroughputPoint{T(30), {}}));
  EXPECT_THAT(Throughput(*tx, "nope", T(0)),
              ElementsAre(ThroughputPoint{T(10), {}}, ThroughputPoint{T(20), {}},
                          ThroughputPoint{T(30), {}}));
  // Only intervals ending after `after`.
  EXPECT_THAT(Throughput(*tx, "reports", T(10)),
              ElementsAre(ThroughputPoint{T(20), {}}, ThroughputPoint{T(30), {0, 5, 0, 0}}));
}

TEST_P(StoreConformanceTest, DeleteThroughputBeforePrunesEveryNodesOldSamples) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", T(10), {{"emails", {1, 0, 0, 0}}})).ok());
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-b", T(10), {{"emails", {1, 0, 0, 0}}})).ok());
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-b", T(20), {})).ok());
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", T(30), {{"emails", {4, 0, 0, 0}}})).ok());
  });
  Write([&](WriteTx& tx) {
    auto deleted = tx.DeleteThroughputBefore(T(30));
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    EXPECT_EQ(*deleted, 3);
    auto again = tx.DeleteThroughputBefore(T(30));  // idempotent: another node pruned too
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, 0);
  });
  EXPECT_THAT(Throughput(*BeginRead(), std::nullopt, T(0)),
              ElementsAre(ThroughputPoint{T(30), {4, 0, 0, 0}}));
}

// The start of an hour (T(0) is 08:00:00 UTC).
Instant Hour(int h) { return T(0) + std::chrono::hours(h); }

JobCounts Counts(long long n) {
  return {n, n + 1, n + 2, n + 3, n + 4, std::chrono::milliseconds(n), std::chrono::seconds(n)};
}

JobCounts SumHourly(ReadTx& tx, const std::optional<std::string>& queue, Instant from_hour) {
  auto sum = tx.SumHourlyThroughput(queue, from_hour);
  EXPECT_TRUE(sum.ok()) << sum.status().ToString();
  return sum.ok() ? *sum : JobCounts{};
}

// Every field of every node's samples adds up in the hour that holds the
// sample's interval (an interval ending on the hour is the hour before's); a
// quiet sample adds nothing; one queue reads only its rows.
TEST_P(StoreConformanceTest, HourlyTotalsAddEveryNodesSamplesPerHourAndQueue) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", Hour(0) + std::chrono::seconds(10),
                                           {{"emails", Counts(1)}, {"reports", Counts(10)}}))
                    .ok());
    ASSERT_TRUE(tx.RecordThroughput(
                      Sample("node-b", Hour(0) + std::chrono::seconds(10), {{"emails", Counts(2)}}))
                    .ok());
  });
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", Hour(0) + std::chrono::seconds(20), {})).ok());
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", Hour(1), {{"emails", Counts(4)}})).ok());
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", Hour(1) + std::chrono::seconds(10),
                                           {{"emails", Counts(100)}}))
                    .ok());
  });
  JobCounts hour0_emails = Counts(1);
  hour0_emails += Counts(2);
  hour0_emails += Counts(4);
  JobCounts all_emails = hour0_emails;
  all_emails += Counts(100);
  JobCounts everything = all_emails;
  everything += Counts(10);

  auto tx = BeginRead();
  EXPECT_EQ(SumHourly(*tx, "emails", Hour(0)), all_emails);
  EXPECT_EQ(SumHourly(*tx, "emails", Hour(1)), Counts(100));
  EXPECT_EQ(SumHourly(*tx, "emails", Hour(2)), JobCounts{});
  EXPECT_EQ(SumHourly(*tx, "reports", Hour(0)), Counts(10));
  EXPECT_EQ(SumHourly(*tx, std::nullopt, Hour(0)), everything);
  EXPECT_EQ(SumHourly(*tx, std::nullopt, Hour(1)), Counts(100));
  EXPECT_EQ(SumHourly(*tx, "nope", Hour(0)), JobCounts{});
  // The 10-second samples keep their four counts only.
  EXPECT_THAT(
      Throughput(*tx, "emails", Hour(1) - std::chrono::seconds(1)),
      ElementsAre(ThroughputPoint{Hour(1), {4, 5, 6, 7}},
                  ThroughputPoint{Hour(1) + std::chrono::seconds(10), {100, 101, 102, 103}}));
}

TEST_P(StoreConformanceTest, DeleteHourlyThroughputBeforePrunesEveryNodesOldHours) {
  Write([&](WriteTx& tx) {
    ASSERT_TRUE(tx.RecordThroughput(Sample("node-a", Hour(0) + std::chrono::seconds(10),
                                           {{"emails", Counts(1)}, {"reports", Counts(1)}}))
                    .ok());
    ASSERT_TRUE(tx.RecordThroughput(
                      Sample("node-b", Hour(0) + std::chrono::seconds(10), {{"emails", Counts(1)}}))
                    .ok());
    ASSERT_TRUE(tx.RecordThroughput(
                      Sample("node-b", Hour(2) + std::chrono::seconds(10), {{"emails", Counts(5)}}))
                    .ok());
  });
  Write([&](WriteTx& tx) {
    auto deleted = tx.DeleteHourlyThroughputBefore(Hour(1));
    ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
    EXPECT_EQ(*deleted, 3);
    auto again = tx.DeleteHourlyThroughputBefore(Hour(1));  // idempotent
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, 0);
  });
  EXPECT_EQ(SumHourly(*BeginRead(), std::nullopt, Hour(0)), Counts(5));
}

}  // namespace
}  // namespace redrive::store::testing
