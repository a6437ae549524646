// What a handler works with: the request after routing and authentication,
// and where its one answer goes. Handlers decode the call, make one engine
// call and encode the result in the engine's callback (on an engine thread).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "api/api.h"
#include "api/auth.h"
#include "api/auth_failure_limiter.h"
#include "api/auth_stored_keys.h"
#include "api/error_mapping.h"
#include "api/http_types.h"
#include "core/clock.h"
#include "core/status.h"

namespace redrive::api {

class HttpMetrics;

// Path parameters ({id}, {name}) and query parameters, percent-decoded.
using PathParams = std::map<std::string, std::string, std::less<>>;
using QueryParams = std::map<std::string, std::string, std::less<>>;

struct Call {
  engine::Engine& engine;
  const ApiOptions& options;
  Role role;  // caller.role
  Request request;
  PathParams params;
  QueryParams query;
  Responder respond;
  // The API's HTTP metrics, for the /metrics handler (null in bare tests).
  std::shared_ptr<const HttpMetrics> http_metrics;
  // Who is calling (auth.h), and this node's stored keys (handlers that
  // change a key apply it here before answering). Null stored_keys: bare tests.
  Caller caller;
  StoredKeys* stored_keys = nullptr;
  // Whether requests must present a key (bootstrap or stored keys exist).
  bool keys_required = false;
  // The token exchange's secret and the failed-authentication limit, for
  // the /auth routes that take a key or token in their body. Null: bare tests.
  TokenAuthority* tokens = nullptr;
  AuthFailureLimiter* auth_failures = nullptr;

  // The API's clock, of key expiry, tokens and schedule previews
  // (ApiOptions::clock; the Api sets the system clock when none was given).
  Instant Now() const { return options.clock->Now(); }
  // The value of a path parameter the route pattern declares.
  const std::string& Param(std::string_view name) const { return params.find(name)->second; }
  // The JSON object body (see request_decoding.h for the rules).
  Result<boost::json::object> Body() const;
  void Fail(const Status& status) const { respond(ErrorResponse(status)); }
};

// A route's handler. It must answer through call.respond exactly once.
using Handler = void (*)(Call& call);

}  // namespace redrive::api
