// The packed history (history_codec.h): every field of every entry reads back
// as written, ids are derived unless kept, segments stay within their bound,
// and bytes that are not a segment are refused, never read past their end.
#include "store/sqlite/history_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <span>
#include <string>
#include <vector>

#include "core/ids.h"
#include "core/outcome.h"

namespace redrive::store::sqlite::history {
namespace {

const int64_t kSeq = 4242;
const std::string kJob = "01a248e2-beda-728c-be3b-5e6f999392c5";

Instant At(int64_t micros) { return InstantFromMicros(1'796'519'149'274'245 + micros); }

HistoryEntry Entry(std::string type, std::optional<std::string> worker, std::string details,
                   int64_t micros, std::optional<std::string> node = "vm-32411-6e2e") {
  HistoryEntry h;
  h.id = "01a248e2-beda-7e67-879a-748ded52b39d";
  h.job_id = kJob;
  h.event_type = std::move(type);
  h.worker_id = std::move(worker);
  h.details_json = std::move(details);
  h.created_at = At(micros);
  h.node_id = std::move(node);
  return h;
}

std::vector<HistoryEntry> Decode(const std::string& segment, size_t first_index = 0) {
  std::vector<HistoryEntry> out;
  size_t index = first_index;
  Status st = DecodeSegment(BytesOf(segment), kSeq, kJob, index, out);
  EXPECT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(index, first_index + out.size());
  return out;
}

std::string Encode(const std::vector<HistoryEntry>& entries, bool keep_id = false) {
  std::string segment;
  SegmentTail tail;
  for (const HistoryEntry& h : entries) AppendEntry(segment, tail, h, keep_id);
  return segment;
}

// What the store hands back: the entry as written, with its derived id.
std::vector<HistoryEntry> WithDerivedIds(std::vector<HistoryEntry> entries) {
  for (size_t i = 0; i < entries.size(); ++i) {
    entries[i].id = DerivedEntryId(kSeq, i, entries[i].created_at);
  }
  return entries;
}

std::vector<HistoryEntry> SuccessPath() {
  const std::string worker = "redrive-bench-32434-batch-0";
  return {
      Entry("created", std::nullopt, R"({"queue_name":"rb-s-batch-w1"})", 0),
      Entry("processing", worker,
            R"({"lease_id":"01a248e2-c0aa-74d3-94dc-d6a969af6db5","attempt":1})", 506'895),
      Entry("completed", worker, "{}", 559'367),
  };
}

// A job that simply succeeded: three entries in about a hundred bytes, where
// schema version 25 stored about 450 (docs/benchmarks.md).
TEST(HistoryCodecTest, ASuccessPathIsAHundredBytesAndReadsBackWhole) {
  const std::vector<HistoryEntry> entries = SuccessPath();
  const std::string segment = Encode(entries);
  EXPECT_LE(segment.size(), 100u);
  EXPECT_EQ(Decode(segment), WithDerivedIds(entries));
}

TEST(HistoryCodecTest, EveryShapeOfEntryReadsBackAsWritten) {
  const std::vector<HistoryEntry> entries = {
      // Unlisted event type, no worker, no node.
      Entry("heartbeat_missed", std::nullopt, "{}", 0, std::nullopt),
      // A node appears; the worker appears.
      Entry("processing", "w-1",
            R"({"lease_id":"01a248e2-c0aa-74d3-94dc-d6a969af6db5","attempt":12})", 10),
      // The same worker and node; time goes back (a clock step).
      Entry(
          "retry_scheduled", "w-1",
          R"({"error":"upstream 504 \"x\"","retry_count":1,"next_run":"2026-12-06T01:05:49.781Z"})",
          -5'000'000),
      // Another worker and node; the same microsecond as the entry before.
      Entry("processing", "w-2",
            R"({"lease_id":"01a248e2-c0d5-7a05-8c75-b47f50836a87","attempt":2})", -5'000'000,
            "node-b"),
      // The worker goes away, the node stays.
      Entry("lease_expired", std::nullopt, R"({"x":1})", 60'000'000, "node-b"),
      // Details that look like the compact shapes but are not exactly them.
      Entry("processing", "w-3",
            R"({"lease_id":"01A248E2-C0D5-7A05-8C75-B47F50836A87","attempt":2})", 60'000'001),
      Entry("processing", "w-3",
            R"({"lease_id":"01a248e2-c0d5-7a05-8c75-b47f50836a87","attempt":02})", 60'000'002),
      Entry("processing", "w-3",
            R"({"lease_id":"01a248e2-c0d5-7a05-8c75-b47f50836a87","attempt":2,"x":1})", 60'000'003),
      Entry("processing", "w-3", R"({"lease_id":"short","attempt":2})", 60'000'004),
      Entry("created", std::nullopt, R"({"queue_name":"a\"b\\c","priority":3})", 60'000'005),
      Entry("created", std::nullopt, R"({"queue_name":""})", 60'000'006),
      Entry("moved", "", "", 60'000'007, ""),
      Entry("cancelled", std::nullopt, "{}", 0, std::nullopt),
  };
  EXPECT_EQ(Decode(Encode(entries)), WithDerivedIds(entries));
}

// Every event type core writes (the outcome table's history types) has a
// code: its entries do not spell the type out.
TEST(HistoryCodecTest, EveryHistoryTypeOfTheOutcomeTableHasACode) {
  for (const OutcomeInfo& row : OutcomeTable()) {
    if (row.history_type == nullptr) continue;
    const std::string type = row.history_type;
    const size_t coded = Encode({Entry(type, std::nullopt, "{}", 0)}).size();
    const size_t spelled = Encode({Entry(type + "_", std::nullopt, "{}", 0)}).size();
    EXPECT_EQ(spelled, coded + 1 + type.size() + 1) << type;
    EXPECT_EQ(Decode(Encode({Entry(type, std::nullopt, "{}", 0)}))[0].event_type, type);
  }
}

// Entries converted from before version 26 keep the id they had: a UUID as
// its 16 bytes, any other text as it was.
TEST(HistoryCodecTest, KeptIdsReadBackAsWritten) {
  std::vector<HistoryEntry> entries = SuccessPath();
  entries[1].id = "legacy-entry";
  const std::string kept = Encode(entries, /*keep_id=*/true);
  std::vector<HistoryEntry> expected = entries;
  for (HistoryEntry& h : expected) h.job_id = kJob;
  EXPECT_EQ(Decode(kept), expected);
  EXPECT_EQ(kept.size(), Encode(entries).size() + (1 + 16) * 2 + (1 + 1 + 12));
}

TEST(HistoryCodecTest, DerivedIdsAreUuidV7sOfTheEntrysMillisecondAndDistinct) {
  const Instant at = InstantFromMicros(1'796'519'149'274'245);
  const std::string id = DerivedEntryId(kSeq, 3, at);
  const std::optional<UuidBytes> bytes = ParseUuid(id);
  ASSERT_TRUE(bytes) << id;
  uint64_t ms = 0;
  for (int i = 0; i < 6; ++i) ms = (ms << 8) | (*bytes)[i];
  EXPECT_EQ(ms, 1'796'519'149'274u);
  EXPECT_EQ((*bytes)[6] >> 4, 7);              // version 7
  EXPECT_EQ((*bytes)[8] >> 6, 0b10);           // RFC 9562 variant
  EXPECT_EQ(id, DerivedEntryId(kSeq, 3, at));  // stable
  // Pinned: clients keep these ids, so the layout may never change.
  EXPECT_EQ(id, "01a248e2-beda-7003-8000-000000001092");
  EXPECT_EQ(DerivedEntryId((int64_t{1} << 62) - 1, 4096 + 4095 + 5, at),
            "01a248e2-beda-7004-bfff-ffffffffffff");  // the index modulo 4096
  std::set<std::string> ids;
  for (int64_t seq : {int64_t{1}, int64_t{2}, kSeq, (int64_t{1} << 62) - 1}) {
    for (size_t index : {0u, 1u, 2u, 4095u}) ids.insert(DerivedEntryId(seq, index, at));
  }
  EXPECT_EQ(ids.size(), 16u);
  // The index counts on across segments: a segment's first entry is
  // numbered after the entries of the segments before it.
  const std::vector<HistoryEntry> second = Decode(Encode({SuccessPath()[2]}), 2);
  EXPECT_EQ(second[0].id, DerivedEntryId(kSeq, 2, SuccessPath()[2].created_at));
}

// A segment takes entries while it stays within kSegmentBytes; an entry
// larger than that alone starts (and fills) a segment of its own. What it
// refuses leaves the segment and its tail as they were.
TEST(HistoryCodecTest, SegmentsStayWithinTheirBound) {
  std::string segment;
  SegmentTail tail;
  const HistoryEntry small = Entry("snoozed", "w", R"({"delay_ms":1000})", 1);
  size_t taken = 0;
  while (AppendIfFits(segment, tail, small)) ++taken;
  EXPECT_GT(taken, 20u);
  EXPECT_LE(segment.size(), kSegmentBytes);
  const std::string before = segment;
  EXPECT_FALSE(AppendIfFits(segment, tail, small));
  EXPECT_EQ(segment, before);
  EXPECT_EQ(Decode(segment).size(), taken);

  const HistoryEntry large =
      Entry("retry_scheduled", "w", R"({"error":")" + std::string(2048, 'e') + R"("})", 2);
  std::string alone;
  SegmentTail fresh;
  EXPECT_TRUE(AppendIfFits(alone, fresh, large));
  EXPECT_GT(alone.size(), kSegmentBytes);
  EXPECT_EQ(alone, FirstSegment(large));
  EXPECT_FALSE(AppendIfFits(alone, fresh, small));
}

// The tail the writer appends against is the segment's last entry: an entry
// appended to a decoded tail reads back as one appended in the same pass.
TEST(HistoryCodecTest, AppendingToADecodedTailEqualsWritingInOnePass) {
  const std::vector<HistoryEntry> entries = SuccessPath();
  std::string segment = Encode({entries[0], entries[1]});
  Result<SegmentTail> tail = TailOf(BytesOf(segment));
  ASSERT_TRUE(tail.ok()) << tail.status().ToString();
  EXPECT_FALSE(tail->empty);
  EXPECT_EQ(tail->worker_id, entries[1].worker_id);
  EXPECT_EQ(tail->node_id, entries[1].node_id);
  EXPECT_EQ(tail->at, entries[1].created_at);
  ASSERT_TRUE(AppendIfFits(segment, *tail, entries[2]));
  EXPECT_EQ(segment, Encode(entries));
  Result<SegmentTail> none = TailOf({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty);
}

// Every cut of a segment either ends between entries (and reads those) or is
// refused as INTERNAL; so is a byte changed to an unknown code, flag or kind.
TEST(HistoryCodecTest, BytesThatAreNotASegmentAreRefused) {
  std::vector<HistoryEntry> entries = SuccessPath();
  entries.push_back(Entry("unlisted", "w", R"({"a":1})", 9));
  const std::string segment = Encode(entries, /*keep_id=*/true);
  std::set<size_t> ends;
  for (size_t n = 1; n <= entries.size(); ++n) {
    ends.insert(Encode(std::vector(entries.begin(), entries.begin() + n), true).size());
  }
  for (size_t cut = 0; cut < segment.size(); ++cut) {
    std::vector<HistoryEntry> out;
    size_t index = 0;
    const Status st = DecodeSegment(BytesOf(segment.substr(0, cut)), kSeq, kJob, index, out);
    if (cut == 0 || ends.contains(cut)) {
      EXPECT_TRUE(st.ok()) << cut;
    } else {
      EXPECT_EQ(st.code(), ErrorCode::kInternal) << cut;
    }
  }
  for (const auto& [at, byte] : std::vector<std::pair<size_t, char>>{
           {0, 17},    // an event code past the vocabulary
           {1, 0x20},  // an unknown flag
           {1, 0x03},  // a worker state that does not exist
           {1, 0x01},  // "the same worker" in a segment's first entry
       }) {
    std::string bad = segment;
    bad[at] = byte;
    std::vector<HistoryEntry> out;
    size_t index = 0;
    EXPECT_EQ(DecodeSegment(BytesOf(bad), kSeq, kJob, index, out).code(), ErrorCode::kInternal)
        << at << " " << int(byte);
  }
  const std::string varint_too_long(12, '\xff');
  std::vector<HistoryEntry> out;
  size_t index = 0;
  EXPECT_EQ(
      DecodeSegment(BytesOf(std::string("\x01\x00", 2) + varint_too_long), kSeq, kJob, index, out)
          .code(),
      ErrorCode::kInternal);
}

}  // namespace
}  // namespace redrive::store::sqlite::history
