// Spooled's multi-tenant SaaS routes, which Redrive does not serve, and why:
// a Spooled client calling one gets 404 NOT_FOUND naming the reason instead
// of a bare "no route". docs/api.md's table "Spooled route → Redrive" lists
// them with every other route of Spooled's.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace redrive::api {

// The reason `segments` (a decoded path, "/api/v1/billing/status" →
// {"api","v1","billing","status"}) names a route Redrive leaves out of scope;
// nullopt for any other path.
std::optional<std::string> OutOfScopeReason(const std::vector<std::string>& segments);

}  // namespace redrive::api
