// The JSON text both stores keep for a job's tags (a flat object of
// strings; SQLite's jobs.tags, PostgreSQL's jsonb, whose text form has
// spaces) and SQLite passes to json_each() for id lists. The stores link no
// JSON library, and these two shapes need only a few dozen lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"

namespace redrive {

// {"k":"v",...} in key order; strings escaped per RFC 8259.
std::string EncodeTagsJson(const Tags& tags);
// Parses a flat object of string values (any valid JSON of that shape).
// nullopt for anything else.
std::optional<Tags> DecodeTagsJson(std::string_view json);
// ["a","b",...].
std::string EncodeStringArrayJson(const std::vector<std::string>& values);

}  // namespace redrive
