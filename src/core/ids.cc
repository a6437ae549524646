#include "core/ids.h"

#include <array>

namespace redrive {

std::string NewUuidV7(Instant now, Random& random) {
  const uint64_t ms = static_cast<uint64_t>(ToMicros(now) / 1000) & 0xFFFFFFFFFFFFULL;
  const uint64_t r1 = random.Next();
  const uint64_t r2 = random.Next();
  std::array<uint8_t, 16> b{};
  for (int i = 0; i < 6; ++i) b[i] = static_cast<uint8_t>(ms >> (40 - 8 * i));
  b[6] = static_cast<uint8_t>(0x70 | ((r1 >> 8) & 0x0F));  // version 7
  b[7] = static_cast<uint8_t>(r1);
  b[8] = static_cast<uint8_t>(0x80 | ((r1 >> 16) & 0x3F));  // variant 10
  b[9] = static_cast<uint8_t>(r1 >> 24);
  for (int i = 0; i < 6; ++i) b[10 + i] = static_cast<uint8_t>(r2 >> (8 * i));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 0x0F]);
  }
  return out;
}

}  // namespace redrive
