#include "app/serve_command.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "api/api.h"
#include "core/clock.h"
#include "core/random.h"
#include "engine/engine.h"
#include "outbound_http/http_sender.h"
#include "server/http_server.h"
#include "server/signals.h"
#include "store/postgres/pg_store.h"
#include "store/sqlite/sqlite_store.h"

namespace redrive::app {
namespace {

// Start-up failures: one line on stderr, meant to be read by a person.
int Fail(const std::string& message) {
  std::cerr << "redrive: " << message << "\n";
  return 1;
}

// Logs go to stderr (stdout carries only the "listening on" line, which
// scripts and the e2e harness parse), with UTC timestamps.
void ConfigureLogging(const std::string& level) {
  auto logger = spdlog::stderr_color_mt("redrive");
  spdlog::set_default_logger(logger);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  spdlog::set_level(spdlog::level::from_str(level));
}

std::string DescribeAuth(const server::ServeConfig& config) {
  if (!config.api_keys.empty()) return std::to_string(config.api_keys.size()) + " API key(s)";
  return config.insecure_no_auth ? "no auth (--insecure-no-auth)" : "no auth (loopback only)";
}

// Everything that runs once the store is open. Split out so the objects are
// declared in dependency order and destroyed in reverse.
int Serve(const server::ServeConfig& config, store::Store& store) {
  SystemClock clock;
  SystemRandom random;
  engine::EngineOptions engine_options;
  engine_options.retention_interval = config.retention_interval;
  engine_options.prune_workers_after = config.prune_workers_after;
  engine_options.node_id = config.node_id;
  if (store.traits().write_model == store::WriteModel::kTransactionPerRequest) {
    // Several nodes may share the store: cross-node wake-ups are a hint
    // (LISTEN/NOTIFY), so parked claims also look again now and then.
    engine_options.claim_repoll = std::chrono::seconds(5);
  }
  outbound_http::HttpSenderOptions sender_options;
  sender_options.timeout = config.webhook_timeout;
  sender_options.user_agent = std::string("Redrive-Webhooks/") + REDRIVE_VERSION;
  engine_options.webhook_sender = std::make_shared<outbound_http::HttpSender>(sender_options);
  engine_options.webhooks.concurrency = config.webhook_concurrency;
  engine_options.webhooks.policy.base = config.webhook_retry_base;
  // A reserved delivery outlives its POST by a margin; only a node that died
  // mid-attempt lets the reservation lapse (and then it is sent again).
  engine_options.webhooks.policy.attempt_lease = config.webhook_timeout + std::chrono::seconds(5);
  engine::Engine engine(store, clock, random, engine_options);
  if (Status st = engine.Start(); !st.ok()) return Fail("cannot start engine: " + st.message());

  api::ApiOptions api_options;
  api_options.keys = config.api_keys;
  api_options.limits = config.limits;
  api_options.version = REDRIVE_VERSION;
  api_options.listen_host = config.listen.host;
  api_options.allowed_hosts = config.allowed_hosts;
  api_options.auth_failures.max_failures = config.auth_failure_limit;
  api_options.auth_failures.window = config.auth_failure_window;
  api_options.clock = &clock;
  api::Api api(engine, std::move(api_options));

  server::HttpServerOptions server_options;
  server_options.host = config.listen.host;
  server_options.port = config.listen.port;
  server_options.io_threads = config.io_threads;
  server_options.max_body_bytes = config.limits.max_body_bytes;
  server_options.max_connections = config.max_connections;
  server_options.max_buffered_body_bytes = config.max_buffered_body_bytes;
  server_options.screen = [&api](const api::Request& head) { return api.Screen(head); };
  server::HttpServer http(server_options, [&api](api::Request request, api::Responder respond) {
    api.Handle(std::move(request), std::move(respond));
  });
  if (Status st = http.Start(); !st.ok()) {
    engine.Stop();
    return Fail(st.message());
  }

  std::string address = server::FormatHostPort(config.listen.host, http.port());
  std::cout << "listening on http://" << address << std::endl;  // endl: flush for whoever waits
  spdlog::info("redrive {} on http://{}, node {}, store {}, {}", REDRIVE_VERSION, address,
               engine.node_id(), store.Describe(), DescribeAuth(config));

  int signo = server::WaitForTerminationSignal();
  spdlog::info("{}: shutting down (finishing requests in flight)", strsignal(signo));
  {
    // A second Ctrl-C means "now": skip the drain.
    server::SignalWatcher impatient([](int) {
      spdlog::warn("second signal: exiting without finishing requests");
      std::_Exit(1);
    });
    // Order matters: the engine must stop before the server waits, because
    // stopping it is what answers pending long-polls (claims wait up to 30 s).
    http.Drain();   // no new connections; idle ones closed
    engine.Stop();  // answers long-polls, commits everything queued, joins
    http.Stop();    // delivers those answers (bounded wait), joins I/O threads
  }
  spdlog::info("stopped");
  return 0;
}

}  // namespace

int RunServe(const server::ServeConfig& config) {
  // Before any thread exists (the store's, the engine's, the server's), so
  // that all of them inherit the blocked mask.
  server::BlockTerminationSignals();
  ConfigureLogging(config.log_level);

  const std::string store_name = server::RedactedStoreUrl(config.store);
  Result<std::unique_ptr<store::Store>> store = Status::Internal("no store");
  if (config.store.kind == server::StoreUrl::Kind::kPostgres) {
    store::PgOptions options;
    options.pool_size = static_cast<size_t>(config.db_pool_size);
    auto pg = store::PgStore::Open(config.store.location, options);
    if (pg.ok())
      store = std::unique_ptr<store::Store>(std::move(*pg));
    else
      store = pg.status();
  } else {
    auto sqlite = store::SqliteStore::Open(config.store.location);
    if (sqlite.ok())
      store = std::unique_ptr<store::Store>(std::move(*sqlite));
    else
      store = sqlite.status();
  }
  if (!store.ok()) return Fail("cannot open store " + store_name + ": " + store.status().message());
  if (Status st = (*store)->Migrate(); !st.ok()) {
    return Fail("cannot migrate store " + store_name + ": " + st.message());
  }
  return Serve(config, **store);
}

}  // namespace redrive::app
