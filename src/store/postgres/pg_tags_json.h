// Tags as the jsonb object jobs.tags holds. Written as JSON text (every
// string escaped per RFC 8259); read back from PostgreSQL's jsonb output,
// which reorders keys and respaces (Tags is a map: order does not matter).
// The store module links no JSON library, and this one shape needs only a
// small parser.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/job.h"

namespace redrive::store::postgres {

// {"k":"v",...} in key order.
std::string EncodeTags(const Tags& tags);
// A flat object of string values (any valid JSON of that shape); nullopt
// for anything else.
std::optional<Tags> DecodeTags(std::string_view json);

}  // namespace redrive::store::postgres
