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
