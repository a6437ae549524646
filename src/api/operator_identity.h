// Who is calling, for the operator audit log and for the key space of the
// caller's Idempotency-Keys. Keys have no secrets in either: a named key
// ("--api-key admin@oncall:KEY") is its name, an unnamed one a label made
// from a hash of the key ("admin#1a2b3c4d"); without configured keys every
// caller is "local" (the audit entry keeps the client address besides).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/api.h"
#include "api/http_types.h"

namespace redrive::api {

// A key's name, or "ROLE#" + the first 8 hex digits of its SHA-256.
std::string KeyLabel(const ApiKey& key);

// The key space of a bootstrap key's Idempotency-Keys: "key:" + 32 hex
// digits of the key's SHA-256 (stable across renames and restarts).
std::string KeyScope(const ApiKey& key);

}  // namespace redrive::api
