// HTTP request metrics: a counter by route, method and status and a latency
// histogram by route. Routes are the route table's templates
// ("/api/v1/jobs/{id}/complete"), never concrete paths, so the number of
// series stays bounded whatever clients send; a request that matched no
// route counts as "unmatched".
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/metrics_registry.h"

namespace redrive::api {

inline constexpr std::string_view kUnmatchedRoute = "unmatched";

class HttpMetrics {
 public:
  HttpMetrics();

  // One answered request: `seconds` from its arrival to its answer.
  void Record(std::string_view route, std::string_view method, int status, double seconds);
  std::string Render() const { return registry_.Render(); }
  const MetricsRegistry& registry() const { return registry_; }

 private:
  MetricsRegistry registry_;
};

}  // namespace redrive::api
