#include "store/sqlite/history_codec.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "core/ids.h"

namespace redrive::store::sqlite::history {
namespace {

// The stored vocabulary of event types: a code is the index here, and a code
// once written keeps its meaning (append, never reorder). Code 0 spells the
// type out, for any type not listed.
constexpr std::array<std::string_view, 17> kEventTypes = {
    "",
    "created",
    "processing",
    "completed",
    "retry_scheduled",
    "lease_expired",
    "deadlettered",
    "retried",
    "cancelled",
    "payload_updated",
    "released",
    "quarantined",
    "quarantine_released",
    "snoozed",
    "unblocked",
    "blocked",
    "moved",
};

// How a worker or node id is kept: absent, the same as the entry before, or
// given.
enum IdState : uint8_t { kAbsent = 0, kSame = 1, kGiven = 2 };
constexpr uint8_t kWorkerShift = 0, kNodeShift = 2, kExplicitIdBit = 1u << 4;

// How the details are kept (see the header).
enum DetailsKind : uint8_t {
  kEmptyObject = 0,  // {}
  kRaw = 1,          // the text as written
  kQueueName = 2,    // {"queue_name":"<text>"}
  kLease = 3,        // {"lease_id":"<uuid>","attempt":<n>}: 16 bytes, varint n
};
constexpr std::string_view kQueuePrefix = R"({"queue_name":")", kQueueSuffix = R"("})";
constexpr std::string_view kLeasePrefix = R"({"lease_id":")", kLeaseMiddle = R"(","attempt":)",
                           kLeaseSuffix = "}";

// How an explicit id is kept.
enum IdKind : uint8_t { kIdBytes = 0, kIdText = 1 };

void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void PutText(std::string& out, std::string_view text) {
  PutVarint(out, text.size());
  out.append(text);
}

uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t UnZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }

uint8_t CodeOf(std::string_view type) {
  for (size_t i = 1; i < kEventTypes.size(); ++i) {
    if (kEventTypes[i] == type) return static_cast<uint8_t>(i);
  }
  return 0;
}

IdState StateOf(const std::optional<std::string>& value, const std::optional<std::string>& before,
                bool first) {
  if (!value) return kAbsent;
  if (!first && before == value) return kSame;
  return kGiven;
}

// The attempt number of kLease details, when `text` is its canonical
// decimal form (what the decoder writes back).
std::optional<uint64_t> CanonicalNumber(std::string_view text) {
  if (text.empty() || text.size() > 18 || (text.size() > 1 && text[0] == '0')) return std::nullopt;
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

void PutDetails(std::string& out, std::string_view details) {
  if (details == "{}") {
    out.push_back(kEmptyObject);
    return;
  }
  if (details.starts_with(kQueuePrefix) && details.ends_with(kQueueSuffix) &&
      details.size() >= kQueuePrefix.size() + kQueueSuffix.size()) {
    out.push_back(kQueueName);
    PutText(out, details.substr(kQueuePrefix.size(),
                                details.size() - kQueuePrefix.size() - kQueueSuffix.size()));
    return;
  }
  if (details.starts_with(kLeasePrefix) && details.ends_with(kLeaseSuffix)) {
    const std::string_view rest = details.substr(kLeasePrefix.size());
    constexpr size_t kUuidChars = 36;
    if (rest.size() > kUuidChars + kLeaseMiddle.size() &&
        rest.substr(kUuidChars, kLeaseMiddle.size()) == kLeaseMiddle) {
      const std::optional<UuidBytes> lease = ParseUuid(rest.substr(0, kUuidChars));
      const std::string_view number =
          rest.substr(kUuidChars + kLeaseMiddle.size(),
                      rest.size() - kUuidChars - kLeaseMiddle.size() - kLeaseSuffix.size());
      const std::optional<uint64_t> attempt = CanonicalNumber(number);
      if (lease && attempt) {
        out.push_back(kLease);
        out.append(reinterpret_cast<const char*>(lease->data()), lease->size());
        PutVarint(out, *attempt);
        return;
      }
    }
  }
  out.push_back(kRaw);
  PutText(out, details);
}

// Reads a segment front to back; every read is checked against its end.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> bytes) : bytes_(bytes) {}

  bool AtEnd() const { return pos_ == bytes_.size(); }
  bool ok() const { return ok_; }

  uint8_t Byte() {
    if (pos_ >= bytes_.size()) return Fail();
    return bytes_[pos_++];
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const uint8_t b = Byte();
      if (!ok_) return 0;
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return Fail();
  }
  std::string_view Bytes(uint64_t n) {
    if (n > bytes_.size() - pos_) {
      Fail();
      return {};
    }
    std::string_view s(reinterpret_cast<const char*>(bytes_.data()) + pos_, n);
    pos_ += n;
    return s;
  }
  std::string_view Text() { return Bytes(Varint()); }

 private:
  uint8_t Fail() {
    ok_ = false;
    pos_ = bytes_.size();
    return 0;
  }

  std::span<const uint8_t> bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

UuidBytes ToUuidBytes(std::string_view sixteen) {
  UuidBytes bytes{};
  std::copy(sixteen.begin(), sixteen.end(), bytes.begin());
  return bytes;
}

// Reads the details into `out`, or only past them when `out` is null (a
// tail needs none). False if the bytes are not details.
bool ReadDetails(Reader& r, std::string* out) {
  switch (r.Byte()) {
    case kEmptyObject:
      if (out) *out = "{}";
      return r.ok();
    case kRaw: {
      const std::string_view text = r.Text();
      if (out) *out = text;
      return r.ok();
    }
    case kQueueName: {
      const std::string_view name = r.Text();
      if (out) *out = std::string(kQueuePrefix).append(name).append(kQueueSuffix);
      return r.ok();
    }
    case kLease: {
      const std::string_view lease = r.Bytes(16);
      const uint64_t attempt = r.Varint();
      if (!r.ok()) return false;
      if (out) {
        *out = std::string(kLeasePrefix)
                   .append(FormatUuid(ToUuidBytes(lease)))
                   .append(kLeaseMiddle)
                   .append(std::to_string(attempt))
                   .append(kLeaseSuffix);
      }
      return true;
    }
    default:
      return false;
  }
}

// Reads a worker or node id kept in `state` against the entry before.
bool ReadId(Reader& r, uint8_t state, const std::optional<std::string>& before, bool first,
            std::optional<std::string>& out) {
  switch (state) {
    case kAbsent:
      out.reset();
      return true;
    case kSame:
      if (first || !before) return false;
      out = before;
      return true;
    case kGiven:
      out = std::string(r.Text());
      return r.ok();
    default:
      return false;
  }
}

// Decodes every entry of a segment, calling `each(entry, explicit_id)`;
// without `details`, each entry's details_json is left empty.
template <typename Each>
Status ForEachEntry(std::span<const uint8_t> segment, bool details, Each each) {
  Reader r(segment);
  SegmentTail tail;
  const auto corrupt = [] {
    return Status::Internal("a job's history in the store cannot be decoded");
  };
  while (!r.AtEnd()) {
    HistoryEntry h;
    const uint8_t code = r.Byte();
    const uint8_t flags = r.Byte();
    if (!r.ok() || code >= kEventTypes.size() || (flags & ~(kExplicitIdBit | 0x0F)) != 0) {
      return corrupt();
    }
    h.event_type = code == 0 ? std::string(r.Text()) : std::string(kEventTypes[code]);
    const int64_t delta = UnZigZag(r.Varint());
    h.created_at = InstantFromMicros(static_cast<int64_t>(
        static_cast<uint64_t>(tail.empty ? 0 : ToMicros(tail.at)) + static_cast<uint64_t>(delta)));
    if (flags & kExplicitIdBit) {
      const uint8_t kind = r.Byte();
      if (kind == kIdBytes) {
        const std::string_view bytes = r.Bytes(16);
        if (r.ok()) h.id = FormatUuid(ToUuidBytes(bytes));
      } else if (kind == kIdText) {
        h.id = std::string(r.Text());
      } else {
        return corrupt();
      }
    }
    if (!ReadId(r, (flags >> kWorkerShift) & 3, tail.worker_id, tail.empty, h.worker_id) ||
        !ReadId(r, (flags >> kNodeShift) & 3, tail.node_id, tail.empty, h.node_id)) {
      return corrupt();
    }
    h.details_json.clear();
    if (!ReadDetails(r, details ? &h.details_json : nullptr)) return corrupt();
    tail = SegmentTail{false, h.created_at, h.worker_id, h.node_id};
    each(std::move(h), (flags & kExplicitIdBit) != 0);
  }
  return Status::Ok();
}

}  // namespace

void AppendEntry(std::string& segment, SegmentTail& tail, const HistoryEntry& entry, bool keep_id) {
  const uint8_t code = CodeOf(entry.event_type);
  const IdState worker = StateOf(entry.worker_id, tail.worker_id, tail.empty);
  const IdState node = StateOf(entry.node_id, tail.node_id, tail.empty);
  segment.push_back(static_cast<char>(code));
  segment.push_back(static_cast<char>((worker << kWorkerShift) | (node << kNodeShift) |
                                      (keep_id ? kExplicitIdBit : 0)));
  if (code == 0) PutText(segment, entry.event_type);
  const int64_t before = tail.empty ? 0 : ToMicros(tail.at);
  PutVarint(segment, ZigZag(static_cast<int64_t>(static_cast<uint64_t>(ToMicros(entry.created_at)) -
                                                 static_cast<uint64_t>(before))));
  if (keep_id) {
    if (const std::optional<UuidBytes> bytes = ParseUuid(entry.id)) {
      segment.push_back(kIdBytes);
      segment.append(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    } else {
      segment.push_back(kIdText);
      PutText(segment, entry.id);
    }
  }
  if (worker == kGiven) PutText(segment, *entry.worker_id);
  if (node == kGiven) PutText(segment, *entry.node_id);
  PutDetails(segment, entry.details_json);
  tail = SegmentTail{false, entry.created_at, entry.worker_id, entry.node_id};
}

bool AppendIfFits(std::string& segment, SegmentTail& tail, const HistoryEntry& entry,
                  bool keep_id) {
  if (segment.empty()) {
    tail = SegmentTail{};
    AppendEntry(segment, tail, entry, keep_id);
    return true;
  }
  std::string encoded;
  SegmentTail after = tail;
  AppendEntry(encoded, after, entry, keep_id);
  if (segment.size() + encoded.size() > kSegmentBytes) return false;
  segment += encoded;
  tail = std::move(after);
  return true;
}

std::string FirstSegment(const HistoryEntry& entry) {
  std::string segment;
  SegmentTail tail;
  AppendEntry(segment, tail, entry);
  return segment;
}

Status DecodeSegment(std::span<const uint8_t> segment, int64_t job_seq, const std::string& job_id,
                     size_t& index, std::vector<HistoryEntry>& out) {
  return ForEachEntry(segment, /*details=*/true, [&](HistoryEntry h, bool explicit_id) {
    if (!explicit_id) h.id = DerivedEntryId(job_seq, index, h.created_at);
    h.job_id = job_id;
    ++index;
    out.push_back(std::move(h));
  });
}

Result<SegmentTail> TailOf(std::span<const uint8_t> segment) {
  SegmentTail tail;
  REDRIVE_RETURN_IF_ERROR(ForEachEntry(segment, /*details=*/false, [&](HistoryEntry h, bool) {
    tail = SegmentTail{false, h.created_at, std::move(h.worker_id), std::move(h.node_id)};
  }));
  return tail;
}

std::string DerivedEntryId(int64_t job_seq, size_t index, Instant at) {
  return UuidV7(static_cast<uint64_t>(ToMicros(at) / 1000), static_cast<uint32_t>(index),
                static_cast<uint64_t>(job_seq));
}

}  // namespace redrive::store::sqlite::history
