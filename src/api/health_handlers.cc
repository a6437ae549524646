// Service routes (no /api/v1 prefix, no key): health, liveness and readiness.
#include <boost/json/object.hpp>
#include <cstdlib>
#include <optional>

#include "api/handlers.h"
#include "api/responses.h"

namespace redrive::api {

// Spooled's shape: always 200 (the process answers), with "status"
// "healthy", or "degraded" while the store is not ready (the same check as
// /health/ready, which is what load balancers should probe), "database" that
// readiness as a boolean and "cache" true (Redrive has no cache to lose).
// "version" stays for Redrive's clients (Spooled hides it here).
void HandleHealth(Call& call) {
  call.engine.Ready([respond = call.respond, version = call.options.version](Status status) {
    respond(JsonResponse(200, boost::json::object{{"status", status.ok() ? "healthy" : "degraded"},
                                                  {"database", status.ok()},
                                                  {"cache", true},
                                                  {"version", version}}));
  });
}

void HandleHealthLive(Call& call) {
  call.respond(JsonResponse(200, boost::json::object{{"status", "ok"}}));
}

// Ready when the store answers; otherwise 503 SERVICE_UNAVAILABLE so a load
// balancer takes this node out of rotation. On a shared database the body
// also reports this node's clock against the database's (clock_check.h):
// "clock" is "ok" or "skewed", which is a warning, not unreadiness.
void HandleHealthReady(Call& call) {
  call.engine.Ready([respond = call.respond, &engine = call.engine](Status status) {
    if (!status.ok()) {
      return respond(ErrorResponse(Status::Unavailable("not ready: " + status.message())));
    }
    boost::json::object body{{"status", "ready"}};
    if (std::optional<engine::ClockSkewReport> skew = engine.clock_skew()) {
      body["clock_skew_ms"] = skew->skew.count() / 1000;
      body["clock"] = skew->beyond ? "skewed" : "ok";
      if (skew->beyond) {
        body["clock_message"] =
            "this node's clock is " + std::to_string(std::abs(skew->skew.count()) / 1000) +
            " ms off the database's, beyond the bound of " +
            std::to_string(skew->bound.count() / 1000) + " ms (--max-clock-skew)";
      }
    }
    respond(JsonResponse(200, std::move(body)));
  });
}

}  // namespace redrive::api
