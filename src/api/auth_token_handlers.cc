// Spooled's token exchange, /api/v1/auth/*: an API key is exchanged for an
// access token (access_token.h; short-lived, checked by any node without a
// store read) and a refresh token (random, kept in the store only as its
// SHA-256). A refresh token is reused until it expires, is logged out or
// its key is revoked: Spooled's SDK refreshes with its login's token every
// time. With --single-use-refresh-tokens each refresh answers a new one and
// ends the one sent. login, refresh and validate are public routes that take
// their credential in the body, so they check the failed-authentication
// limit themselves and count their failures in it, like a bad key anywhere.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <initializer_list>
#include <memory>

#include "api/handlers.h"
#include "api/operator_identity.h"
#include "api/responses.h"
#include "api/token_auth.h"
#include "core/time_format.h"
#include "crypto/secret_text.h"
#include "engine/engine.h"
#include "wire/field_reader.h"

namespace redrive::api {
namespace {

// What every refresh token starts with (recognisable by people and secret
// scanners), then 43 characters of base64url: 256 bits from the OS.
constexpr std::string_view kRefreshTokenPrefix = "rdr_";
// Bounds on the credentials a body may carry (beyond them nothing matches).
constexpr size_t kMaxCredentialBytes = 4096;

std::string NewRefreshToken() {
  return std::string(kRefreshTokenPrefix) + crypto::RandomBase64Url(32);
}

Status Unauthorized(std::string message) {
  return Status(ErrorCode::kUnauthorized, std::move(message));
}

// A key of the body the route has no field for: refused rather than ignored.
Status CheckKnownFields(const boost::json::object& body,
                        std::initializer_list<std::string_view> fields) {
  for (const auto& [key, value] : body) {
    if (std::find(fields.begin(), fields.end(), std::string_view(key)) == fields.end()) {
      const std::string shown(std::string_view(key).substr(0, 64));
      return Status::Validation(shown, "unknown field '" + shown + "'");
    }
  }
  return Status::Ok();
}

// The one string field of an /auth body; unset when optional and absent.
Result<std::optional<std::string>> CredentialField(const Call& call, std::string_view field,
                                                   bool required) {
  REDRIVE_ASSIGN_OR_RETURN(boost::json::object body, call.Body());
  REDRIVE_RETURN_IF_ERROR(CheckKnownFields(body, {field}));
  wire::FieldReader r(body);
  if (required) {
    REDRIVE_ASSIGN_OR_RETURN(std::string value, r.RequiredString(field, 1, kMaxCredentialBytes));
    return std::optional<std::string>(std::move(value));
  }
  return r.String(field, 1, kMaxCredentialBytes);
}

// The 429 to send instead while the client is over its failure budget.
std::optional<Response> Throttled(const Call& call) {
  if (call.auth_failures == nullptr) return std::nullopt;
  std::optional<std::chrono::seconds> wait =
      call.auth_failures->RetryAfter(call.request.client_address);
  if (!wait) return std::nullopt;
  Response response = ErrorResponse(Status(
      ErrorCode::kRateLimited, "too many failed authentications from this address; retry in " +
                                   std::to_string(wait->count()) + " s"));
  response.headers.emplace_back("Retry-After", std::to_string(wait->count()));
  return response;
}

// Counts a refused credential against the client, as a bad key is counted.
struct FailureCounter {
  AuthFailureLimiter* limiter;
  std::string client;
  std::string route;

  void operator()(const Status& st) const {
    if (st.code() != ErrorCode::kUnauthorized) return;
    if (limiter != nullptr) limiter->RecordFailure(client);
    spdlog::info("{}: token exchange failed on POST {}: {}", client.empty() ? "client" : client,
                 route, st.message());
  }
};

FailureCounter CounterOf(const Call& call, std::string_view route) {
  return {call.auth_failures, call.request.client_address, std::string(route)};
}

// Runs `then` with the token secret: this node's copy, else the store's,
// created there now if there is none (the cluster's first need of it).
void WithSecret(const Call& call, std::function<void(Result<std::string>)> then) {
  if (call.tokens == nullptr) return then(Status::Internal("no token authority"));
  if (std::shared_ptr<const std::string> secret = call.tokens->secret()) return then(*secret);
  call.engine.EnsureTokenSecret(
      NewTokenSecret(), [tokens = call.tokens, then = std::move(then)](Result<std::string> secret) {
        if (secret.ok()) tokens->SetSecret(*secret);
        then(std::move(secret));
      });
}

// The access token of `caller` (key_id set) issued at `now`.
std::string AccessTokenOf(const Caller& caller, Instant now, std::chrono::seconds ttl,
                          std::string_view secret) {
  AccessClaims claims;
  claims.api_key_id = caller.key_id;
  claims.role = RoleName(caller.role);
  claims.queues = caller.queues;
  // Whole seconds, as the token carries them.
  claims.issued_at = InstantFromMicros(ToMicros(now) / 1'000'000 * 1'000'000);
  claims.expires_at = claims.issued_at + ttl;
  claims.jti = crypto::RandomBase64Url(16);
  return SignAccessToken(claims, secret);
}

boost::json::value OptTime(const std::optional<Instant>& t) {
  return t ? boost::json::value(FormatTime(*t)) : boost::json::value(nullptr);
}

}  // namespace

void HandleLogin(Call& call) {
  if (std::optional<Response> throttled = Throttled(call)) return call.respond(*throttled);
  Result<std::optional<std::string>> api_key = CredentialField(call, "api_key", true);
  if (!api_key.ok()) return call.Fail(api_key.status());
  if (!call.keys_required) {
    return call.Fail(Unauthorized(
        "this server has no API keys (every caller is admin): there is no key to log in with"));
  }
  const Instant now = call.Now();
  Result<Caller> caller = AuthenticateApiKey(**api_key, call.options.keys, *call.stored_keys, now);
  if (!caller.ok()) {
    CounterOf(call, "/api/v1/auth/login")(caller.status());
    return call.Fail(caller.status());
  }
  const ApiOptions* options = &call.options;
  WithSecret(call, [&engine = call.engine, options, respond = call.respond,
                    who = std::move(*caller), now](Result<std::string> secret) mutable {
    if (!secret.ok()) return respond(ErrorResponse(secret.status()));
    if (who.bootstrap_key != nullptr) who.key_id = BootstrapKeyId(*who.bootstrap_key, *secret);
    std::string refresh = NewRefreshToken();
    const std::string hash = crypto::Sha256Hex(refresh);
    engine.IssueRefreshToken(
        hash, who.key_id, options->refresh_token_ttl,
        Answer<RefreshToken>(respond, [options, who, now, secret = *secret,
                                       refresh = std::move(refresh)](RefreshToken&) {
          // Spooled's LoginResponse.
          boost::json::object out{
              {"access_token", AccessTokenOf(who, now, options->access_token_ttl, secret)},
              {"refresh_token", refresh},
              {"token_type", "Bearer"},
              {"expires_in", options->access_token_ttl.count()},
              {"refresh_expires_in", options->refresh_token_ttl.count()}};
          return JsonResponse(200, out);
        }));
  });
}

void HandleRefresh(Call& call) {
  if (std::optional<Response> throttled = Throttled(call)) return call.respond(*throttled);
  Result<std::optional<std::string>> token = CredentialField(call, "refresh_token", true);
  if (!token.ok()) return call.Fail(token.status());
  const Instant now = call.Now();
  const ApiOptions* options = &call.options;
  WithSecret(call, [&engine = call.engine, options, stored = call.stored_keys,
                    respond = call.respond, sent = std::move(**token), now,
                    failed = CounterOf(call, "/api/v1/auth/refresh")](
                       Result<std::string> secret) mutable {
    if (!secret.ok()) return respond(ErrorResponse(secret.status()));
    // The key, as it is now, of the token being used: set by `accept`,
    // which checks it where the token is read.
    auto caller = std::make_shared<Caller>();
    auto accept = [options, stored, secret = *secret, now, caller](const RefreshToken& old) {
      Result<Caller> c = CallerOfKeyId(old.key_id, options->keys, *stored, secret, now);
      if (!c.ok()) return c.status();
      *caller = std::move(*c);
      return Status::Ok();
    };
    // Spooled's RefreshTokenResponse, plus the refresh token to use next
    // and how long it lasts [ext].
    auto answer = [options, respond, failed = std::move(failed), caller, now, secret = *secret](
                      Result<RefreshToken> r, const std::string& refresh) {
      if (!r.ok()) {
        failed(r.status());
        return respond(ErrorResponse(r.status()));
      }
      const auto left = std::chrono::floor<std::chrono::seconds>(r->expires_at - now);
      boost::json::object out{
          {"access_token", AccessTokenOf(*caller, now, options->access_token_ttl, secret)},
          {"token_type", "Bearer"},
          {"expires_in", options->access_token_ttl.count()},
          {"refresh_token", refresh},
          {"refresh_expires_in", std::max<long long>(0, left.count())}};
      respond(JsonResponse(200, out));
    };
    const std::string sent_hash = crypto::Sha256Hex(sent);
    if (!options->single_use_refresh_tokens) {
      return engine.UseRefreshToken(
          sent_hash, std::move(accept),
          [answer, sent = std::move(sent)](Result<RefreshToken> r) { answer(std::move(r), sent); });
    }
    std::string next = NewRefreshToken();
    std::string next_hash = crypto::Sha256Hex(next);  // before `next` moves into the callback
    engine.RotateRefreshToken(
        sent_hash, std::move(next_hash), options->refresh_token_ttl, std::move(accept),
        [answer, next = std::move(next)](Result<RefreshToken> r) { answer(std::move(r), next); });
  });
}

void HandleValidateToken(Call& call) {
  if (std::optional<Response> throttled = Throttled(call)) return call.respond(*throttled);
  Result<std::optional<std::string>> token = CredentialField(call, "token", true);
  if (!token.ok()) return call.Fail(token.status());
  Result<Caller> caller =
      LooksLikeAccessToken(**token) && call.tokens != nullptr
          ? AuthenticateAccessToken(**token, call.options.keys, *call.stored_keys, *call.tokens,
                                    call.Now())
          : Result<Caller>(Unauthorized("not an access token (POST /api/v1/auth/login makes one)"));
  if (!caller.ok()) {
    CounterOf(call, "/api/v1/auth/validate")(caller.status());
    // Spooled's ValidateTokenResponse: its server names the reason
    // `error`, its SDK reads `message`; both carry it.
    const std::string why = caller.status().message();
    return call.respond(
        JsonResponse(200, boost::json::object{{"valid", false}, {"error", why}, {"message", why}}));
  }
  // The token's claims, plus the organization_id Spooled's SDK types them
  // with (its server's own claims name it org_id, as the token does).
  boost::json::object claims = ClaimsJson(*caller->token);
  claims["organization_id"] = claims["org_id"];
  call.respond(JsonResponse(200, boost::json::object{{"valid", true}, {"claims", claims}}));
}

void HandleAuthMe(Call& call) {
  auto answer = [respond = call.respond, caller = call.caller](std::string key_id) {
    boost::json::array queues;
    for (const std::string& q : caller.queues) queues.emplace_back(q);
    const bool by_token = caller.token.has_value();
    // Spooled's CurrentUserResponse; issued_at and expires_at are the
    // token's (null for a key), plus role, name and credential [ext].
    boost::json::object out{
        {"organization_id", "default"},
        {"api_key_id", key_id.empty() ? boost::json::value(nullptr) : boost::json::value(key_id)},
        {"queues", std::move(queues)},
        {"issued_at", OptTime(by_token ? std::optional(caller.token->issued_at) : std::nullopt)},
        {"expires_at", OptTime(by_token ? std::optional(caller.token->expires_at) : std::nullopt)},
        {"organization", nullptr},
        {"role", RoleName(caller.role)},
        {"name", caller.actor},
        {"credential", by_token ? "access_token" : (key_id.empty() ? "none" : "api_key")}};
    respond(JsonResponse(200, out));
  };
  // A bootstrap key presented itself: its id needs the token secret.
  if (call.caller.bootstrap_key != nullptr && call.caller.key_id.empty()) {
    return WithSecret(call, [answer, respond = call.respond,
                             key = call.caller.bootstrap_key](Result<std::string> secret) {
      if (!secret.ok()) return respond(ErrorResponse(secret.status()));
      answer(BootstrapKeyId(*key, *secret));
    });
  }
  answer(call.caller.key_id);
}

void HandleLogout(Call& call) {
  Result<std::optional<std::string>> token = CredentialField(call, "refresh_token", false);
  if (!token.ok()) return call.Fail(token.status());
  auto end = [engine = &call.engine, respond = call.respond,
              token = std::move(*token)](std::string key_id) {
    // Without keys there is no token to end.
    if (key_id.empty()) return respond(NoContentResponse());
    if (token) {
      return engine->EndRefreshToken(
          crypto::Sha256Hex(*token), std::move(key_id),
          Answer<bool>(respond, [](bool) { return NoContentResponse(); }));
    }
    engine->EndRefreshTokensOfKey(std::move(key_id), Answer<long long>(respond, [](long long) {
                                    return NoContentResponse();
                                  }));
  };
  if (call.caller.bootstrap_key != nullptr && call.caller.key_id.empty()) {
    return WithSecret(call, [end, respond = call.respond,
                             key = call.caller.bootstrap_key](Result<std::string> secret) {
      if (!secret.ok()) return respond(ErrorResponse(secret.status()));
      end(BootstrapKeyId(*key, *secret));
    });
  }
  end(call.caller.key_id);
}

}  // namespace redrive::api
