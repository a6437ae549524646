#include "api/api.h"

#include <atomic>
#include <exception>
#include <memory>

#include "api/auth.h"
#include "api/call.h"
#include "api/error_mapping.h"
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
  void Handle(Request request, Responder respond) {
    Result<Target> target = ParseTarget(request.target);
    if (!target.ok()) return respond(ErrorResponse(target.status()));
    RouteMatch match = router_.Match(request.method, target->segments);
    if (match.kind == RouteMatch::Kind::kNotFound) {
      return respond(ErrorResponse(Status::NotFound("no route for " + request.target)));
    }
    if (match.kind == RouteMatch::Kind::kMethodNotAllowed) {
      return respond(MethodNotAllowed(request.method, match.allow));
    }
    Result<Role> role = Authorized(request, match.route->access);
    if (!role.ok()) return respond(ErrorResponse(role.status()));
    Call call{engine_,
              options_,
              *role,
              std::move(request),
              std::move(match.params),
              std::move(target->query),
              std::move(respond)};
    match.route->handler(call);
  }

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
};

Api::Api(engine::Engine& engine, ApiOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {}

Api::~Api() = default;

void Api::Handle(Request request, Responder respond) {
  // A handler that throws (a bug, or bad_alloc) must still answer exactly
  // once, and an answer must never be sent twice: both paths go through
  // one flag (shared, since the engine may answer after Handle returns).
  auto answered = std::make_shared<std::atomic<bool>>(false);
  Responder once = [answered, respond = std::move(respond)](Response r) {
    if (!answered->exchange(true)) respond(std::move(r));
  };
  try {
    impl_->Handle(std::move(request), once);
  } catch (const std::exception& e) {
    once(ErrorResponse(Status::Internal(std::string("internal error: ") + e.what())));
  } catch (...) {
    once(ErrorResponse(Status::Internal("internal error")));
  }
}

}  // namespace redrive::api
