#include "api/api.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>

#include "api/auth.h"
#include "api/auth_key_refresh.h"
#include "api/call.h"
#include "api/error_mapping.h"
#include "api/http_metrics.h"
#include "api/operator_route.h"
#include "api/out_of_scope.h"
#include "api/realtime_handlers.h"
#include "api/request_decoding.h"
#include "api/request_guard.h"
#include "api/router.h"
#include "api/routes.h"
#include "api/token_auth.h"

namespace redrive::api {
namespace {

// The system clock, for an Api given none (one per process is enough).
const Clock& DefaultClock() {
  static const SystemClock clock;
  return clock;
}

// `options` with its clock set: the system clock when none was given.
ApiOptions WithClock(ApiOptions options) {
  if (options.clock == nullptr) options.clock = &DefaultClock();
  return options;
}

// How a request's head was judged: the refusal, or what Handle needs next.
struct Admission {
  std::optional<Response> refusal;
  std::string_view route = kUnmatchedRoute;  // the matched route's template
  RouteMatch match;
  Target target;
  Caller caller;  // "local" admin until a key says otherwise
};

}  // namespace

class Api::Impl {
 public:
  Impl(engine::Engine& engine, ApiOptions options)
      : engine_(engine),
        options_(WithClock(std::move(options))),
        router_(AllRoutes()),
        host_policy_{options_.listen_host, options_.allowed_hosts},
        auth_failures_(*options_.clock, options_.auth_failures) {
    // Loaded before the first request: until then the cache fails closed
    // (keys required), and a node without bootstrap keys would refuse all.
    if (Status st = LoadStoredKeys(engine_, stored_keys_); !st.ok()) {
      spdlog::warn("API keys: cannot load from the store ({}); keys are required until they load",
                   st.message());
    }
    if (Status st = LoadTokenSecret(engine_, tokens_); !st.ok()) {
      spdlog::warn("access tokens: cannot read the token secret from the store ({})", st.message());
    }
    if (options_.key_refresh_interval.count() > 0) {
      refresher_ = std::make_unique<KeyRefresher>(engine_, stored_keys_, &tokens_,
                                                  options_.key_refresh_interval,
                                                  options_.key_use_flush_interval);
    }
  }

  Status RefreshStoredKeys() {
    REDRIVE_RETURN_IF_ERROR(LoadStoredKeys(engine_, stored_keys_));
    REDRIVE_RETURN_IF_ERROR(LoadTokenSecret(engine_, tokens_));
    return FlushKeyUses(engine_, stored_keys_);
  }

  // Bootstrap keys, or a key the store holds (or may hold: not yet loaded).
  bool KeysRequired() const { return !options_.keys.empty() || stored_keys_.any(); }

  // Everything decided on the head, in order: the target (400), the Host
  // when no keys are configured (403), the route (404/405: but first, when
  // keys are configured, the key, so that strangers learn nothing of which
  // routes exist — except at a public route's path), the origin of a state
  // change (403), then authentication (429 while an address is over its
  // failure budget, 401) and authorization (403).
  Admission Admit(const Request& request) {
    Admission a;
    Result<Target> target = ParseTarget(request.target);
    if (!target.ok()) return Refuse(std::move(a), ErrorResponse(target.status()));
    a.target = std::move(*target);
    if (!KeysRequired()) {
      if (Status st = CheckHost(request, host_policy_); !st.ok()) {
        return Refuse(std::move(a), ErrorResponse(st));
      }
    }
    a.match = router_.Match(request.method, a.target.segments);
    if (a.match.kind != RouteMatch::Kind::kFound) {
      const bool public_path = (a.match.path_access & kPublic) != 0;
      if (!public_path) {
        if (std::optional<Response> refused = CheckKey(request, a)) {
          return Refuse(std::move(a), std::move(*refused));
        }
      }
      if (a.match.kind == RouteMatch::Kind::kMethodNotAllowed) {
        return Refuse(std::move(a), MethodNotAllowed(request.method, a.match.allow));
      }
      std::optional<std::string> reason = OutOfScopeReason(a.target.segments);
      return Refuse(
          std::move(a),
          ErrorResponse(Status::NotFound(reason ? *reason : "no route for " + request.target)));
    }
    a.route = a.match.route->pattern;
    if (IsMutatingMethod(request.method)) {
      if (Status st = CheckSameOrigin(request, host_policy_); !st.ok()) {
        spdlog::info("{}: refused {} {}: {}", ClientName(request), request.method, a.route,
                     st.message());
        return Refuse(std::move(a), ErrorResponse(st));
      }
    }
    const unsigned access = a.match.route->access;
    const bool presents_key = request.header("authorization") != nullptr;
    if ((access & kPublic) && !((access & kOptionalKey) && presents_key)) return a;
    if (std::optional<Response> refused = CheckKey(request, a)) {
      return Refuse(std::move(a), std::move(*refused));
    }
    if (!(access & kPublic)) {
      if (Status st = Authorize(a.caller.role, access); !st.ok()) {
        return Refuse(std::move(a), ErrorResponse(st));
      }
    }
    return a;
  }

  // Sets `*route` to the matched route's template before anything can answer.
  void Handle(Request request, Responder respond, std::string_view* route) {
    Admission a = Admit(request);
    *route = a.route;
    if (a.refusal) return respond(std::move(*a.refusal));
    const Role role = a.caller.role;
    Call call{engine_,
              options_,
              role,
              std::move(request),
              std::move(a.match.params),
              std::move(a.target.query),
              std::move(respond),
              http_metrics_,
              std::move(a.caller),
              &stored_keys_,
              KeysRequired(),
              &tokens_,
              &auth_failures_};
    // Operator mutations: Idempotency-Key and the audit log around the handler.
    if (!a.match.route->audit_action.empty())
      return RunOperatorRoute(std::move(call), *a.match.route);
    a.match.route->handler(call);
  }

  const std::shared_ptr<HttpMetrics>& http_metrics() const { return http_metrics_; }

 private:
  static Admission Refuse(Admission a, Response response) {
    a.refusal = std::move(response);
    return a;
  }

  // Authentication: the refusal (429 while the address is over its failure
  // budget, 401), or nullopt with a.caller set. With no keys at all
  // everyone is admin.
  std::optional<Response> CheckKey(const Request& request, Admission& a) {
    if (!KeysRequired()) return std::nullopt;
    if (std::optional<std::chrono::seconds> wait =
            auth_failures_.RetryAfter(request.client_address)) {
      return TooManyFailures(*wait);
    }
    Result<Caller> caller =
        AuthenticateCaller(request, options_.keys, stored_keys_, clock().Now(), &tokens_);
    if (!caller.ok()) {
      auth_failures_.RecordFailure(request.client_address);
      // Never the key itself: only who tried, where, and why it failed.
      spdlog::info("{}: authentication failed on {} {}: {}", ClientName(request), request.method,
                   a.route, caller.status().message());
      return ErrorResponse(caller.status());
    }
    a.caller = std::move(*caller);
    return std::nullopt;
  }

  const Clock& clock() const { return *options_.clock; }

  static std::string ClientName(const Request& request) {
    return request.client_address.empty() ? std::string("client") : request.client_address;
  }

  Response TooManyFailures(std::chrono::seconds wait) const {
    Response response = ErrorResponse(Status(
        ErrorCode::kRateLimited, "too many failed authentications from this address; retry in " +
                                     std::to_string(wait.count()) + " s"));
    response.headers.emplace_back("Retry-After", std::to_string(wait.count()));
    return response;
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
  const HostPolicy host_policy_;
  AuthFailureLimiter auth_failures_;
  StoredKeys stored_keys_;
  TokenAuthority tokens_;
  std::unique_ptr<KeyRefresher> refresher_;  // after stored_keys_ and tokens_: stops first
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
  AdoptQueryCredential(request);
  try {
    impl_->Handle(std::move(request), once, &pending->route);
  } catch (const std::exception& e) {
    once(ErrorResponse(Status::Internal(std::string("internal error: ") + e.what())));
  } catch (...) {
    once(ErrorResponse(Status::Internal("internal error")));
  }
}

Status Api::RefreshStoredKeys() { return impl_->RefreshStoredKeys(); }

std::optional<Response> Api::Screen(const Request& head) {
  const auto arrived = std::chrono::steady_clock::now();
  Request with_credential;
  const Request* request = &head;
  if (head.header("authorization") == nullptr && head.target.find('?') != std::string::npos) {
    with_credential = head;
    AdoptQueryCredential(with_credential);
    request = &with_credential;
  }
  Admission a = impl_->Admit(*request);
  if (!a.refusal) return std::nullopt;
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - arrived;
  impl_->http_metrics()->Record(a.route, head.method, a.refusal->status, took.count());
  return std::move(a.refusal);
}

}  // namespace redrive::api
