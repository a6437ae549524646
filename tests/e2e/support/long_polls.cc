#include "e2e/support/long_polls.h"

#include <cstdlib>

#include "e2e/support/wait.h"

namespace redrive::e2e {

long long ClaimsWaiting(HttpClient& client, const std::string& queue) {
  HttpResponse r = client.Get("/metrics");
  if (r.status != 200) return -1;
  const std::string series = "\nredrive_claims_waiting{queue=\"" + queue + "\"} ";
  const size_t at = r.body.find(series);
  if (at == std::string::npos) return 0;
  return std::atoll(r.body.c_str() + at + series.size());
}

bool WaitForParkedClaim(HttpClient& client, const std::string& queue) {
  return WaitUntil([&] { return ClaimsWaiting(client, queue) > 0; });
}

}  // namespace redrive::e2e
