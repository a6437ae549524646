#include "core/ids.h"

namespace redrive {

namespace {

constexpr char kHex[] = "0123456789abcdef";

bool IsHyphenAt(size_t pos) { return pos == 8 || pos == 13 || pos == 18 || pos == 23; }

int LowerHexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

uint64_t Millis(Instant now) { return static_cast<uint64_t>(ToMicros(now) / 1000); }

}  // namespace

std::string UuidV7(uint64_t ms, uint32_t rand_a, uint64_t rand_b) {
  ms &= (uint64_t{1} << 48) - 1;
  rand_a &= 0xFFF;
  rand_b &= (uint64_t{1} << 62) - 1;
  UuidBytes b{};
  for (int i = 0; i < 6; ++i) b[i] = static_cast<uint8_t>(ms >> (40 - 8 * i));
  b[6] = static_cast<uint8_t>(0x70 | (rand_a >> 8));  // version 7
  b[7] = static_cast<uint8_t>(rand_a);
  b[8] = static_cast<uint8_t>(0x80 | (rand_b >> 56));  // variant 10
  for (int i = 9; i < 16; ++i) b[i] = static_cast<uint8_t>(rand_b >> (8 * (15 - i)));
  return FormatUuid(b);
}

std::string NewUuidV7(Instant now, Random& random) {
  const uint64_t r1 = random.Next();
  const uint64_t r2 = random.Next();
  return UuidV7(Millis(now), static_cast<uint32_t>(r1), r2);
}

std::string UuidV7Sequence::Next(Instant now, Random& random) {
  const uint64_t ms = Millis(now);
  const uint64_t r1 = random.Next();
  const uint64_t r2 = random.Next();
  if (!started_ || ms > ms_) {
    started_ = true;
    ms_ = ms;
    counter_ = static_cast<uint32_t>(r1 & 0x7FF);
  } else if (++counter_ > 0xFFF) {
    ++ms_;
    counter_ = 0;
  }
  return UuidV7(ms_, counter_, r2);
}

std::optional<UuidBytes> ParseUuid(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  UuidBytes out{};
  size_t byte = 0;
  for (size_t pos = 0; pos < text.size();) {
    if (IsHyphenAt(pos)) {
      if (text[pos] != '-') return std::nullopt;
      ++pos;
      continue;
    }
    const int hi = LowerHexValue(text[pos]);
    const int lo = LowerHexValue(text[pos + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[byte++] = static_cast<uint8_t>(hi << 4 | lo);
    pos += 2;
  }
  return out;
}

std::string FormatUuid(const UuidBytes& bytes) {
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[bytes[i] >> 4]);
    out.push_back(kHex[bytes[i] & 0x0F]);
  }
  return out;
}

}  // namespace redrive
