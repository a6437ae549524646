// The REST API of shared/spec/api.md as one function: Handle(Request) → Response.
// One route table (routes.cc); each handler decodes → makes one engine call →
// encodes; errors are mapped to HTTP in one place (error_mapping.h).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/auth_failure_limiter.h"
#include "api/http_types.h"
#include "core/clock.h"
#include "core/limits.h"
#include "core/status.h"

namespace redrive::engine {
class Engine;
}

namespace redrive::api {

enum class Role { kAdmin, kWorker, kViewer };

struct ApiKey {
  Role role;
  std::string key;
  // Who the key is in the audit log ("ROLE@NAME:KEY"); empty: the key is
  // shown by a label derived from it (api/operator_identity.h).
  std::string name;
};

struct ApiOptions {
  // Bootstrap keys. None, and no stored key either: everyone is admin
  // (loopback-only rule is the server's).
  std::vector<ApiKey> keys;
  // How often this node re-reads the store's API keys when another node may
  // have changed them (bounds how late a revoke made elsewhere takes effect
  // here), and how often their last use is written. Zero refresh: no
  // refresh thread (tests call Api::RefreshStoredKeys); the keys are still
  // loaded once when the Api is made.
  std::chrono::milliseconds key_refresh_interval{0};
  std::chrono::milliseconds key_use_flush_interval{std::chrono::seconds(15)};
  // The token exchange (POST /api/v1/auth/login, token_auth.h): how long an
  // access token and a refresh token last. --access-token-ttl,
  // --refresh-token-ttl.
  std::chrono::seconds access_token_ttl{15 * 60};
  std::chrono::seconds refresh_token_ttl{24 * 3600};
  // --single-use-refresh-tokens: a refresh ends the token sent and answers
  // a new one; off, it answers the token sent, usable until it ends.
  bool single_use_refresh_tokens = false;
  ServerLimits limits;
  std::string version = "0.1.0";
  // Accept webhook URLs whose host is a literal non-global address (a
  // loopback, private, link-local, ... IP); the sender checks every target
  // again at send time. --webhook-allow-private-targets.
  bool webhook_allow_private_targets = false;
  // The --listen host and the --allowed-host names (request_guard.h): which
  // Host values are served when no keys are configured, and which origins
  // besides the request's own Host may make changes.
  std::string listen_host = "127.0.0.1";
  std::vector<std::string> allowed_hosts;
  AuthFailureLimits auth_failures;
  // How often a quiet live event stream (GET /api/v1/events, /api/v1/ws)
  // sends a keep-alive (--event-ping-interval).
  std::chrono::milliseconds event_ping_interval{15000};
  // Times the auth-failure windows and is the "now" of a schedule preview;
  // null: the system clock. Must outlive the Api.
  const Clock* clock = nullptr;
};

class Api {
 public:
  // `engine` must outlive the Api.
  Api(engine::Engine& engine, ApiOptions options);
  ~Api();

  // Answers `request` by calling `respond` exactly once, possibly on another
  // thread (an engine thread) and possibly before Handle returns.
  // Thread-safe.
  void Handle(Request request, Responder respond);

  // Decides on a request's head alone (method, target, headers; the body not
  // yet read): the answer to send instead (404, 405, 401, 403, 429, ...), or
  // nullopt when the request may proceed to Handle once its body is in.
  // Handle repeats these checks, so calling Screen is an optimisation that
  // the server uses to refuse before buffering a body. A refusal is counted
  // in the HTTP metrics like any answer. Thread-safe.
  std::optional<Response> Screen(const Request& head);

  // Reloads the stored API keys if the store's version moved, reads the
  // token secret if this node has none yet, and writes the keys' noted last
  // uses; blocks until done. The refresh thread does this
  // every key_refresh_interval; tests call it directly.
  Status RefreshStoredKeys();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// "ROLE:KEY" flags are parsed by server/serve_config.h (ParseApiKey).

}  // namespace redrive::api
