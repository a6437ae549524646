// GET /metrics: Prometheus text exposition format 0.0.4. The engine renders
// the store gauges and its job counters (one call, on a reader thread); the
// HTTP metrics are the API's own and are appended here.
#include "api/handlers.h"
#include "api/http_metrics.h"
#include "engine/engine.h"

namespace redrive::api {

void HandleMetrics(Call& call) {
  call.engine.ScrapeMetrics(
      [respond = call.respond, http = call.http_metrics](Result<std::string> text) {
        if (!text.ok()) return respond(ErrorResponse(text.status()));
        Response response;
        response.content_type = "text/plain; version=0.0.4; charset=utf-8";
        response.body = std::move(text).value();
        if (http) response.body += http->Render();
        respond(std::move(response));
      });
}

}  // namespace redrive::api
