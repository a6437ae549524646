#include "e2e/support/request_counts.h"

#include <cstdlib>
#include <sstream>

namespace redrive::e2e {

long long RequestsAnswered(HttpClient& client, const std::string& route) {
  HttpResponse r = client.Get("/metrics");
  if (r.status != 200) return -1;
  const std::string prefix = "redrive_http_requests_total{route=\"" + route + "\",";
  long long total = 0;
  std::istringstream lines(r.body);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(prefix, 0) == 0) total += std::atoll(line.c_str() + line.rfind(' ') + 1);
  }
  return total;
}

std::map<std::string, long long> WorkerRequests(HttpClient& client) {
  std::map<std::string, long long> counts;
  for (const char* route : {"claim", "ack", "{id}/complete", "{id}/fail", "{id}/heartbeat"}) {
    counts[route] = RequestsAnswered(client, std::string("/api/v1/jobs/") + route);
  }
  return counts;
}

long long RequestsBetween(const std::map<std::string, long long>& before,
                          const std::map<std::string, long long>& after) {
  long long total = 0;
  for (const auto& [route, n] : after) {
    auto it = before.find(route);
    total += n - (it == before.end() ? 0 : it->second);
  }
  return total;
}

}  // namespace redrive::e2e
