// API keys and roles: who may call which route.
//   admin  — everything;
//   worker — enqueue, bulk, claim, job heartbeat/complete/fail/ack,
//            workers/*, and reading one job (GET /jobs/{id});
//   viewer — GET routes only, with payload and result left out.
// With no keys configured every caller is admin (the server refuses to listen
// on a non-loopback address then, unless told to).
#pragma once

#include <string_view>
#include <vector>

#include "api/api.h"
#include "api/http_types.h"
#include "core/status.h"

namespace redrive::api {

// Who may call a route, as a bit set; admins may call every route.
enum Access : unsigned {
  kAdminOnly = 0,
  kWorkers = 1u << 0,
  kViewers = 1u << 1,
  kPublic = 1u << 2,  // no key needed (health checks)
  // With kPublic: a key is optional, but one that is presented must be valid
  // (and its failures count like any other; GET /api/v1/me).
  kOptionalKey = 1u << 3,
};

const char* RoleName(Role role);  // "admin", "worker", "viewer"

// The role of the request's "Authorization: Bearer KEY". UNAUTHORIZED when
// keys are configured and the header is missing, malformed or names no key.
Result<Role> Authenticate(const Request& request, const std::vector<ApiKey>& keys);
// The key of the request's "Authorization: Bearer KEY" among `keys` (which
// it points into); UNAUTHORIZED as Authenticate when there is none.
Result<const ApiKey*> MatchingKey(const Request& request, const std::vector<ApiKey>& keys);

// ACCESS_DENIED when `role` may not use a route with `access`.
Status Authorize(Role role, unsigned access);

}  // namespace redrive::api
