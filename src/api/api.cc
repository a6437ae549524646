#include "api/api.h"

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>

#include "api/auth.h"
#include "api/call.h"
#include "api/error_mapping.h"
#include "api/http_metrics.h"
#include "api/request_decoding.h"
#include "api/router.h"
#include "api/routes.h"

namespace redrive::api {

class Api::Impl {
 public:
  Impl(engine::Engine& engine, ApiOptions options)
      : engine_(engine), options_(std::move(options)), router_(AllRoutes()) {}

  // Order: route (404/405), then authenticate (401) and authorize (403),
  // then the handler decodes the body (415/413/400) and calls the engine.
  // Sets `*route` to the matched route's template before anything can answer.
  void Handle(Request request, Responder respond, std::string_view* route) {
    Result<Target> target = ParseTarget(request.target);
    if (!target.ok()) return respond(ErrorResponse(target.status()));
    RouteMatch match = router_.Match(request.method, target->segments);
    if (match.kind == RouteMatch::Kind::kNotFound) {
      return respond(ErrorResponse(Status::NotFound("no route for " + request.target)));
    }
    if (match.kind == RouteMatch::Kind::kMethodNotAllowed) {
      return respond(MethodNotAllowed(request.method, match.allow));
    }
    *route = match.route->pattern;
    Result<Role> role = Authorized(request, match.route->access);
    if (!role.ok()) return respond(ErrorResponse(role.status()));
    Call call{engine_,
              options_,
              *role,
              std::move(request),
              std::move(match.params),
              std::move(target->query),
              std::move(respond),
              http_metrics_};
    match.route->handler(call);
  }

  const std::shared_ptr<HttpMetrics>& http_metrics() const { return http_metrics_; }

 private:
  Result<Role> Authorized(const Request& request, unsigned access) const {
    if (access & kPublic) return Role::kAdmin;
    REDRIVE_ASSIGN_OR_RETURN(Role role, Authenticate(request, options_.keys));
    REDRIVE_RETURN_IF_ERROR(Authorize(role, access));
    return role;
  }

  static Response MethodNotAllowed(const std::string& method, const std::string& allow) {
    Response response = ErrorResponse(Status(
        ErrorCode::kMethodNotAllowed, method + " is not allowed here (allowed: " + allow + ")"));
    response.headers.emplace_back("Allow", allow);
    return response;
  }

  engine::Engine& engine_;
  const ApiOptions options_;
  const Router router_;
  // Shared with in-flight answers: the engine may answer a request (a parked
  // long-poll at shutdown) after the Api is gone.
  const std::shared_ptr<HttpMetrics> http_metrics_ = std::make_shared<HttpMetrics>();
};

Api::Api(engine::Engine& engine, ApiOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {}

Api::~Api() = default;

void Api::Handle(Request request, Responder respond) {
  // A handler that throws (a bug, or bad_alloc) must still answer exactly
  // once, and an answer must never be sent twice: both paths go through
  // one flag (shared, since the engine may answer after Handle returns).
  // The same single answer is where the request is measured.
  struct Pending {
    std::atomic<bool> answered{false};
    std::chrono::steady_clock::time_point arrived = std::chrono::steady_clock::now();
    std::string method;
    // A route template (static storage: the route table) or "unmatched".
    std::string_view route = kUnmatchedRoute;
  };
  auto pending = std::make_shared<Pending>();
  pending->method = request.method;
  std::shared_ptr<HttpMetrics> metrics = impl_->http_metrics();
  Responder once = [pending, metrics, respond = std::move(respond)](Response r) {
    if (pending->answered.exchange(true)) return;
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - pending->arrived;
    metrics->Record(pending->route, pending->method, r.status, took.count());
    respond(std::move(r));
  };
  try {
    impl_->Handle(std::move(request), once, &pending->route);
  } catch (const std::exception& e) {
    once(ErrorResponse(Status::Internal(std::string("internal error: ") + e.what())));
  } catch (...) {
    once(ErrorResponse(Status::Internal("internal error")));
  }
}

}  // namespace redrive::api
