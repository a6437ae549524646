// How the SQLite store keeps a job's history (schema version 26): not one
// row per entry, but the entries packed into a few bytes each, in segments
// of up to kSegmentBytes, one row of job_history per segment keyed by
// (job_seq, seg). A job that simply succeeded has one segment of about 110
// bytes where it had three rows of about 120 bytes each plus their index
// entries (docs/benchmarks.md, "Storage: a job's history packed").
//
// An entry is encoded against the one before it in its segment: its time as
// the difference, its worker and node as "the same" when they are. Nothing is
// dropped: every field of every entry reads back as it was written, except
// the entry's id. A new entry's id is not stored but derived when read (a
// UUIDv7 of the entry's millisecond, its job's seq and its place in the
// job's history: DerivedEntryId), which is as unique and as stable; entries
// converted from before version 26 keep the id they had.
//
// The details JSON of the three entries of a job's success path are kept by
// their variable parts only (a queue name; a lease id as 16 bytes and the
// attempt), and only when the fixed text around them is exactly what the
// decoder writes back; any other details are kept as written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/job.h"
#include "core/status.h"

namespace redrive::store::sqlite::history {

// A segment's bytes as SQLite binds and reads a BLOB.
inline std::span<const uint8_t> BytesOf(const std::string& segment) {
  return {reinterpret_cast<const uint8_t*>(segment.data()), segment.size()};
}

// A segment takes another entry while it stays within this many bytes; an
// entry that is larger alone (an error message near its 2,048 characters)
// fills a segment of its own. It bounds what appending an entry rewrites.
inline constexpr size_t kSegmentBytes = 1024;

// What the next entry of a segment is encoded against: the last entry's
// time, worker and node. A new segment starts from nothing.
struct SegmentTail {
  bool empty = true;
  Instant at{};
  std::optional<std::string> worker_id;
  std::optional<std::string> node_id;
};

// Appends `entry` to `segment`, encoded against `tail`, and advances `tail`.
// `keep_id`: store the entry's id (the conversion of older entries); new
// entries' ids are derived when read.
void AppendEntry(std::string& segment, SegmentTail& tail, const HistoryEntry& entry,
                 bool keep_id = false);

// Appends `entry` to a job's last segment (`segment`, read into `tail` by
// TailOf) if the segment stays within kSegmentBytes or is empty. Otherwise
// returns false and leaves both as they were: the entry begins a new segment.
bool AppendIfFits(std::string& segment, SegmentTail& tail, const HistoryEntry& entry,
                  bool keep_id = false);

// A new segment holding `entry` alone.
std::string FirstSegment(const HistoryEntry& entry);

// Decodes a segment of the job `job_id` (whose row is `job_seq`), appending
// its entries to `out` in the order they were written. `index` is the place
// of the segment's first entry in the job's history (the entries of the
// segments before it) and is advanced past its last. INTERNAL if the bytes
// are not a segment.
Status DecodeSegment(std::span<const uint8_t> segment, int64_t job_seq, const std::string& job_id,
                     size_t& index, std::vector<HistoryEntry>& out);

// The tail of a segment, to append to it. INTERNAL if the bytes are not a
// segment.
Result<SegmentTail> TailOf(std::span<const uint8_t> segment);

// The id of the entry at `index` in the history of the job `job_seq`, made
// at `at`: a UUIDv7 whose 48 bits are at's millisecond, whose 12 bits after
// the version are the index (modulo 4096) and whose last 62 bits the seq.
std::string DerivedEntryId(int64_t job_seq, size_t index, Instant at);

}  // namespace redrive::store::sqlite::history
