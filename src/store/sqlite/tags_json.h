// The JSON text the SQLite store keeps in jobs.tags (a flat object of
// strings) and passes to json_each() for id lists. The store module links no
// JSON library, and these two shapes need only a few dozen lines.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"

namespace redrive::store::sqlite {

// {"k":"v",...} in key order; strings escaped per RFC 8259.
std::string EncodeTagsJson(const Tags& tags);
// Parses a flat object of string values (any valid JSON of that shape).
// nullopt for anything else.
std::optional<Tags> DecodeTagsJson(std::string_view json);
// ["a","b",...].
std::string EncodeStringArrayJson(const std::vector<std::string>& values);

}  // namespace redrive::store::sqlite
