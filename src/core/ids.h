// Identifiers: UUIDv7 (time-ordered) for jobs, workers, history entries and
// lease ids (the fencing token; random bits make it unguessable).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/random.h"

namespace redrive {

// RFC 9562 UUIDv7: 48-bit Unix milliseconds, then random bits.
std::string NewUuidV7(Instant now, Random& random);

// The UUIDv7 of the low 48 bits of `ms`, the low 12 bits of `rand_a` (after
// the version) and the low 62 bits of `rand_b` (after the variant, most
// significant first). NewUuidV7 fills the two fields at random; a store may
// fill them from facts it keeps instead, for ids it derives rather than
// stores.
std::string UuidV7(uint64_t ms, uint32_t rand_a, uint64_t rand_b);

// Ids that ascend in the order they are made (RFC 9562 section 6.2, method
// 1), for the rows one op creates together. A bulk's jobs share one `now`,
// and NewUuidV7's random bits would order them at random: every walk by
// (created_at, id) (listings, bulk operations) would then visit their rows
// out of insertion order, one page each, where in order it reads and
// rewrites a few neighbouring pages. Within one millisecond the 12 bits
// after the version count up from a random start below 2048; past 4095 the
// millisecond field moves on by one, so the ids keep ascending (also when
// `now` goes back). The other 62 bits are random as in NewUuidV7. Not
// thread-safe: one sequence per op.
class UuidV7Sequence {
 public:
  std::string Next(Instant now, Random& random);

 private:
  bool started_ = false;
  uint64_t ms_ = 0;
  uint32_t counter_ = 0;
};

// A UUID's 16 bytes, for stores that keep ids compact.
using UuidBytes = std::array<uint8_t, 16>;
// The bytes of `text` when it is a UUID in the canonical form NewUuidV7
// writes (lowercase hex, hyphens after the 8th, 12th, 16th and 20th digit);
// nullopt for any other text, which therefore survives a round trip only as
// text. FormatUuid(*ParseUuid(t)) == t.
std::optional<UuidBytes> ParseUuid(std::string_view text);
// The canonical text of a UUID's bytes.
std::string FormatUuid(const UuidBytes& bytes);

}  // namespace redrive
