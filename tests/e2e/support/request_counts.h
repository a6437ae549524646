// How many requests a running server answered, per route, from its
// redrive_http_requests_total metric: what a test counts to show that a
// client batches (e.g. that a worker's outcomes ride on its claims).
#pragma once

#include <map>
#include <string>

#include "e2e/support/http_client.h"

namespace redrive::e2e {

// Requests answered on `route` (its pattern, e.g. "/api/v1/jobs/{id}/complete"),
// summed over methods and statuses; -1 when /metrics did not answer 200.
long long RequestsAnswered(HttpClient& client, const std::string& route);

// RequestsAnswered for the routes a worker uses, keyed by the part after
// /api/v1/jobs/: "claim", "ack", "{id}/complete", "{id}/fail", "{id}/heartbeat".
std::map<std::string, long long> WorkerRequests(HttpClient& client);

// `after` minus `before`, route by route, summed.
long long RequestsBetween(const std::map<std::string, long long>& before,
                          const std::map<std::string, long long>& after);

}  // namespace redrive::e2e
