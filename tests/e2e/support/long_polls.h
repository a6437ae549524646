// What a running server says about its parked long-poll claims, so a test
// can wait until a claim is really waiting instead of sleeping and hoping.
#pragma once

#include <string>

#include "e2e/support/http_client.h"

namespace redrive::e2e {

// The redrive_claims_waiting{queue=...} sample of GET /metrics (0 when the
// queue has no parked claim), or -1 when /metrics did not answer 200.
long long ClaimsWaiting(HttpClient& client, const std::string& queue);

// Waits until at least one claim of `queue` is parked (or 10 s pass).
bool WaitForParkedClaim(HttpClient& client, const std::string& queue);

}  // namespace redrive::e2e
