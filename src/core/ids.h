// Identifiers: UUIDv7 (time-ordered) for jobs, workers, history entries and
// lease ids (the fencing token; random bits make it unguessable).
#pragma once

#include <string>

#include "core/clock.h"
#include "core/random.h"

namespace redrive {

// RFC 9562 UUIDv7: 48-bit Unix milliseconds, then random bits.
std::string NewUuidV7(Instant now, Random& random);

}  // namespace redrive
