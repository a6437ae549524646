#include "api/http_metrics.h"

namespace redrive::api {

namespace {

// Methods are client-chosen strings: anything unusual is folded into one
// label value so a scanner cannot create unbounded series.
std::string MethodLabel(std::string_view method) {
  for (std::string_view known : {"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"}) {
    if (method == known) return std::string(known);
  }
  return "other";
}

}  // namespace

HttpMetrics::HttpMetrics() {
  registry_.AddCounter("redrive_http_requests_total", "HTTP requests answered.",
                       {"route", "method", "status"});
  registry_.AddHistogram("redrive_http_request_duration_seconds",
                         "Time from a request's arrival to its answer.", {"route"},
                         {.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10});
}

void HttpMetrics::Record(std::string_view route, std::string_view method, int status,
                         double seconds) {
  const std::string r(route);
  registry_.Add("redrive_http_requests_total", {r, MethodLabel(method), std::to_string(status)});
  registry_.Observe("redrive_http_request_duration_seconds", {r}, seconds);
}

}  // namespace redrive::api
