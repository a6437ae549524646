// Service routes (no /api/v1 prefix, no key): liveness and readiness.
#include <boost/json/object.hpp>

#include "api/handlers.h"
#include "api/responses.h"

namespace redrive::api {

void HandleHealth(Call& call) {
  call.respond(
      JsonResponse(200, boost::json::object{{"status", "ok"}, {"version", call.options.version}}));
}

void HandleHealthLive(Call& call) {
  call.respond(JsonResponse(200, boost::json::object{{"status", "ok"}}));
}

// Ready when the store answers; otherwise 503 SERVICE_UNAVAILABLE so a load
// balancer takes this node out of rotation.
void HandleHealthReady(Call& call) {
  call.engine.Ready([respond = call.respond](Status status) {
    if (!status.ok()) {
      return respond(ErrorResponse(Status::Unavailable("not ready: " + status.message())));
    }
    respond(JsonResponse(200, boost::json::object{{"status", "ready"}}));
  });
}

}  // namespace redrive::api
