// The route table's matcher: method + path pattern ("/api/v1/jobs/{id}") →
// route. Literal segments beat parameters position by position, so
// /jobs/claim wins over /jobs/{id} and /jobs/dlq/retry over /jobs/{id}/retry.
//
// Thread-safety: immutable after construction; Match is safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/call.h"

namespace redrive::api {

struct Route {
  std::string_view method;   // "GET", "POST", "PUT", "DELETE"
  std::string_view pattern;  // "/api/v1/jobs/{id}"
  unsigned access;           // an Access bit set (auth.h)
  Handler handler;
  // Set on every operator mutation ("job.retry", "queue.pause", ...): the
  // request takes an Idempotency-Key and leaves an audit entry naming this
  // action (operator_route.h). Its noun ("job", "queue", "webhook", "dlq")
  // says what the route's parameters name.
  std::string_view audit_action = {};
};

struct RouteMatch {
  enum class Kind { kFound, kNotFound, kMethodNotAllowed };
  Kind kind = Kind::kNotFound;
  const Route* route = nullptr;  // when kFound
  PathParams params;             // when kFound
  std::string allow;             // when kMethodNotAllowed: "GET, DELETE"
  unsigned path_access = 0;      // when kMethodNotAllowed: the routes' Access bits, or'ed
};

class Router {
 public:
  explicit Router(std::vector<Route> routes);

  // `segments`: the decoded path segments ("/api/v1/jobs/x" →
  // {"api","v1","jobs","x"}).
  RouteMatch Match(std::string_view method, const std::vector<std::string>& segments) const;

 private:
  struct Compiled {
    Route route;
    std::vector<std::string> segments;  // "{id}" marks a parameter
  };
  std::vector<Compiled> routes_;
};

}  // namespace redrive::api
