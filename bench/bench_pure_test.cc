// Unit tests of the bench's pure helpers: percentiles, the job ledger, payload
// sizing and reading, and the result-line writer.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "job_ledger.h"
#include "json_writer.h"
#include "latency_summary.h"
#include "payload.h"

namespace redrive::bench {
namespace {

TEST(LatencySummary, NearestRankLikeThePeerHarness) {
  std::vector<int64_t> ns;
  for (int64_t i = 1; i <= 100; ++i) ns.push_back(i * 1'000'000);  // 1..100 ms
  LatencySummary s = Summarize(ns);
  EXPECT_EQ(s.count, 100);
  EXPECT_DOUBLE_EQ(s.p50_ms, 50);
  EXPECT_DOUBLE_EQ(s.p90_ms, 90);
  EXPECT_DOUBLE_EQ(s.p99_ms, 99);
  EXPECT_DOUBLE_EQ(s.max_ms, 100);
  EXPECT_DOUBLE_EQ(s.mean_ms, 50.5);
}

TEST(LatencySummary, EmptyAndSingle) {
  std::vector<int64_t> none;
  EXPECT_EQ(Summarize(none).count, 0);
  std::vector<int64_t> one{2'500'000};
  LatencySummary s = Summarize(one);
  EXPECT_DOUBLE_EQ(s.p50_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.p99_ms, 2.5);
}

TEST(JobLedger, CountsLostDuplicatedAndForeign) {
  JobLedger ledger(4);
  EXPECT_EQ(ledger.RecordAttempt(0), 1);
  EXPECT_EQ(ledger.RecordSuccess(0), 1);
  EXPECT_EQ(ledger.RecordAttempt(1), 1);  // failed attempt
  EXPECT_EQ(ledger.RecordAttempt(1), 2);
  EXPECT_EQ(ledger.RecordSuccess(1), 1);
  ledger.RecordAttempt(2);
  ledger.RecordSuccess(2);
  ledger.RecordAttempt(2);
  EXPECT_EQ(ledger.RecordSuccess(2), 2);  // a duplicate run
  EXPECT_EQ(ledger.RecordAttempt(9), 0);  // not ours
  LedgerTally t = ledger.Tally();
  EXPECT_EQ(t.completed_once, 2);
  EXPECT_EQ(t.lost, 1);  // job 3 never ran
  EXPECT_EQ(t.duplicated, 1);
  EXPECT_EQ(t.invocations, 5);
  EXPECT_EQ(t.foreign, 1);
  EXPECT_EQ(ledger.attempts(1), 2);
}

TEST(Payload, PadsToTheTargetSize) {
  EXPECT_EQ(boost::json::serialize(MakePayload("W1", 7, 1'234'567'890'123, 100)).size(), 100u);
  // Too small a target: the fields alone, no padding.
  auto small = MakePayload("W1", 7, 0, 10);
  EXPECT_EQ(small.at("pad").as_string(), "");
  EXPECT_EQ(small.at("i").as_int64(), 7);
}

TEST(Payload, ReadsBackItsIndexAndStamp) {
  BenchJob job = ReadPayload(MakePayload("W2", 42, 1'234'567, 100));
  EXPECT_EQ(job.index, 42);
  EXPECT_EQ(job.sent_ns, 1'234'567);
  // Re-serialized as a double, or not the bench's at all.
  job = ReadPayload(boost::json::object{{"i", 3.0}, {"t", 5u}});
  EXPECT_EQ(job.index, 3);
  EXPECT_EQ(job.sent_ns, 5);
  EXPECT_EQ(ReadPayload(boost::json::object{{"to", "ada"}}).index, -1);
  EXPECT_EQ(ReadPayload(boost::json::value(7)).index, -1);
}

TEST(WriteJson, PlainDoubles) {
  boost::json::object o{{"rate", 4321.0},
                        {"p50", 43.29},
                        {"neg", -0.0001},
                        {"n", 5},
                        {"s", "a\"b"},
                        {"ok", true},
                        {"list", boost::json::array{1.5, nullptr}}};
  EXPECT_EQ(WriteJson(o),
            R"({"rate":4321,"p50":43.29,"neg":0,"n":5,"s":"a\"b","ok":true,"list":[1.5,null]})");
}

}  // namespace
}  // namespace redrive::bench
