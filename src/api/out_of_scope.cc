#include "api/out_of_scope.h"

#include <string_view>

namespace redrive::api {
namespace {

// One row per family of Spooled routes under /api/v1: the leading segments
// that name it and why Redrive has none.
struct OutOfScope {
  std::string_view first, second;  // second empty: any route under `first`
  std::string_view reason;
};

constexpr OutOfScope kOutOfScope[] = {
    {"organizations", "",
     "organizations (and sign-up, which creates one) are out of scope: a Redrive server serves "
     "one organization, \"default\""},
    {"billing", "", "billing and plans are out of scope: Redrive is self-hosted, with no tiers"},
    {"admin", "",
     "Spooled's admin panel (organizations, plans, platform stats) is out of scope: operate "
     "Redrive with its console, CLI and API keys"},
    {"auth", "email",
     "e-mail login is out of scope: Redrive authenticates with API keys (Authorization: Bearer)"},
};

}  // namespace

std::optional<std::string> OutOfScopeReason(const std::vector<std::string>& segments) {
  if (segments.size() < 3 || segments[0] != "api" || segments[1] != "v1") return std::nullopt;
  for (const OutOfScope& row : kOutOfScope) {
    if (segments[2] != row.first) continue;
    if (!row.second.empty() && (segments.size() < 4 || segments[3] != row.second)) continue;
    return std::string(row.reason) + " (see docs/api.md, \"Spooled route → Redrive\")";
  }
  return std::nullopt;
}

}  // namespace redrive::api
