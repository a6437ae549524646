// Validating the bodies of POST and PUT /api-keys[/{id}] (Spooled's shapes,
// plus Redrive's role [ext]):
//   name        1..100 bytes (required on POST)
//   role        "admin", "worker" or "viewer" [ext]; on POST it defaults to
//               "worker" for a key limited to queues, "admin" otherwise
//   queues      array of queue names, at most 100 (duplicates dropped);
//               empty: every queue. Only worker keys may have them.
//   expires_at  RFC 3339 time (POST only; in the future: the engine checks)
//   is_active   boolean (PUT only): false revokes, true reinstates
//   rate_limit  Spooled's per-key rate limit: refused (Redrive has none),
//               rather than accepted and ignored
// Every failure is a VALIDATION_ERROR whose details.field names the field.
#pragma once

#include <boost/json/object.hpp>

#include "core/api_key.h"
#include "core/status.h"

namespace redrive::api {

// POST: the key to create (name, role, queues, expires_at set; the handler
// adds the secret's hash and prefix).
Result<StoredApiKey> DecodeCreateApiKey(const boost::json::object& body);
// PUT: every field optional.
Result<ApiKeyPatch> DecodeApiKeyPatch(const boost::json::object& body);

}  // namespace redrive::api
