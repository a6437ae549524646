#include "app/serve_command.h"

#include <spdlog/spdlog.h>

#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "api/api.h"
#include "app/logging.h"
#include "core/clock.h"
#include "core/random.h"
#include "engine/engine.h"
#include "engine/services/duties.h"
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
  engine_options.audit_retention = config.audit_retention;
  engine_options.operation_retention = config.operation_retention;
  engine_options.operation_batch = config.operation_batch;
  engine_options.operation_yield_share = config.operation_yield_share;
  engine_options.coalesce_writes = config.coalesce_writes;
  engine_options.share_write_connections = config.share_db_pool;
  engine_options.max_event_streams = config.max_event_streams;
  engine_options.event_buffer = config.event_buffer;
  engine_options.prune_workers_after = config.prune_workers_after;
  engine_options.node_id = config.node_id;
  engine_options.max_clock_skew = config.max_clock_skew;
  engine_options.max_queues = config.limits.max_queues;
  engine_options.max_webhooks = config.limits.max_webhooks;
  engine_options.max_schedules = config.max_schedules;
  engine_options.schedule_history_keep = config.schedule_history_keep;
  engine_options.schedule_history_retention = config.schedule_history_retention;
  if (store.traits().write_model == store::WriteModel::kTransactionPerRequest) {
    // Several nodes may share the store: cross-node wake-ups are a hint
    // (LISTEN/NOTIFY), so parked claims also look again now and then.
    engine_options.claim_repoll = std::chrono::seconds(5);
  }
  outbound_http::HttpSenderOptions sender_options;
  sender_options.timeout = config.webhook_timeout;
  sender_options.user_agent = std::string("Redrive-Webhooks/") + REDRIVE_VERSION;
  sender_options.allow_private_targets = config.webhook_allow_private_targets;
  engine_options.webhook_sender = std::make_shared<outbound_http::HttpSender>(sender_options);
  engine_options.webhooks.concurrency = config.webhook_concurrency;
  engine_options.webhooks.policy.base = config.webhook_retry_base;
  // A reserved delivery outlives its POST by a margin; only a node that died
  // mid-attempt lets the reservation lapse (and then it is sent again).
  engine_options.webhooks.policy.attempt_lease = config.webhook_timeout + std::chrono::seconds(5);
  engine::Engine engine(store, clock, random, engine_options);
  // Where several nodes may write (PostgreSQL), or one was named, every text
  // log line says which node wrote it, from the engine's start on. (JSON
  // lines name it from the first line on: RunServe.)
  if (config.store.kind == server::StoreUrl::Kind::kPostgres || !config.node_id.empty()) {
    SetLogNode(engine.node_id());
  }
  if (Status st = engine.Start(); !st.ok()) return Fail("cannot start engine: " + st.message());
  // The first requests then find the store's connections ready.
  if (Status st = engine.WarmUp(); !st.ok()) {
    spdlog::warn("warm-up of the write path: {} (the first requests prepare it)", st.message());
  }

  api::ApiOptions api_options;
  api_options.keys = config.api_keys;
  api_options.limits = config.limits;
  api_options.version = REDRIVE_VERSION;
  api_options.webhook_allow_private_targets = config.webhook_allow_private_targets;
  api_options.listen_host = config.listen.host;
  api_options.allowed_hosts = config.allowed_hosts;
  api_options.auth_failures.max_failures = config.auth_failure_limit;
  api_options.auth_failures.window = config.auth_failure_window;
  api_options.clock = &clock;
  api_options.access_token_ttl = config.access_token_ttl;
  api_options.refresh_token_ttl = config.refresh_token_ttl;
  api_options.single_use_refresh_tokens = config.single_use_refresh_tokens;
  api_options.event_ping_interval = config.event_ping_interval;
  // Bounds how late a key revoked on another node is refused here.
  api_options.key_refresh_interval = std::chrono::seconds(1);
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

// glibc's malloc gives the free top of a thread's heap back to the kernel
// once it passes the trim threshold, and maps blocks past the mmap threshold
// on their own; both start at 128 KiB. A batch's transaction makes and frees
// hundreds of jobs (those it reads, and each one's change before and after),
// so the committer took the same pages from the kernel again, faulting each
// in, transaction after transaction (about a twentieth of its time in batch
// mode; docs/benchmarks.md). Fixed thresholds keep up to 16 MiB free per
// heap and map only blocks of 4 MiB or more.
// GLIBC_TUNABLES naming malloc settings is the operator's choice and wins.
void TuneMalloc() {
#ifdef __GLIBC__
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr) return;
  mallopt(M_TRIM_THRESHOLD, 16 << 20);
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

// The start-up integrity check of a SQLite store (--skip-integrity-check,
// --integrity-check-budget). A damaged file is refused: otherwise the server
// would start, say it is ready, and fail every write that touches the damage.
Status CheckIntegrity(const server::ServeConfig& config, store::SqliteStore& store) {
  if (config.skip_integrity_check) {
    spdlog::warn("integrity check of {} skipped (--skip-integrity-check)", store.path());
    return Status::Ok();
  }
  SystemClock clock;
  const Instant started = clock.Now();
  auto report = store.CheckIntegrity(clock, config.integrity_check_budget);
  if (!report.ok()) {
    return Status::Unavailable("cannot check the integrity of " + store.path() + ": " +
                               report.status().message());
  }
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(clock.Now() - started);
  if (!report->ok()) {
    std::string problems;
    for (const std::string& p : report->problems) problems += (problems.empty() ? "" : "; ") + p;
    return Status::Unavailable(
        "the database file " + store.path() + " is damaged (PRAGMA quick_check: " + problems +
        "). Keep a copy of the file (with its -wal file), then restore the latest backup, or "
        "salvage what is readable with `sqlite3 " +
        store.path() +
        " .recover`. --skip-integrity-check starts anyway, but writes touching the damage "
        "will fail");
  }
  if (!report->complete) {
    spdlog::warn(
        "integrity check of {} cut short after {} ms (--integrity-check-budget {}s); no damage "
        "in the part checked",
        store.path(), took.count(), config.integrity_check_budget.count());
  } else {
    spdlog::info("integrity check of {}: ok ({} ms)", store.path(), took.count());
  }
  return Status::Ok();
}

Result<std::unique_ptr<store::Store>> OpenSqlite(const server::ServeConfig& config) {
  store::SqliteOptions options;
  options.exclusive = true;  // one server per file (store/sqlite/server_lock.h)
  options.sync =
      config.sqlite_pipelined_sync ? store::SqliteSync::kPipelined : store::SqliteSync::kFull;
  REDRIVE_ASSIGN_OR_RETURN(std::unique_ptr<store::SqliteStore> sqlite,
                           store::SqliteStore::Open(config.store.location, options));
  REDRIVE_RETURN_IF_ERROR(CheckIntegrity(config, *sqlite));
  return std::unique_ptr<store::Store>(std::move(sqlite));
}

}  // namespace

int RunServe(const server::ServeConfig& given) {
  // Before any thread exists (the store's, the engine's, the server's), so
  // that all of them inherit the blocked mask.
  server::BlockTerminationSignals();
  TuneMalloc();
  ConfigureLogging(given.log_level, given.log_json ? LogFormat::kJson : LogFormat::kText);
  server::ServeConfig config = given;
  if (config.log_json) {
    // A collector groups lines by node, so every JSON line names it, the
    // start-up ones too: the engine's default id is chosen here instead.
    if (config.node_id.empty()) config.node_id = engine::DefaultNodeId();
    SetLogNode(config.node_id);
  }

  const std::string store_name = server::RedactedStoreUrl(config.store);
  Result<std::unique_ptr<store::Store>> store = Status::Internal("no store");
  if (config.store.kind == server::StoreUrl::Kind::kPostgres) {
    store::PgOptions options;
    options.pool_size = static_cast<size_t>(config.db_pool_size);
    options.limits = config.limits;
    auto pg = store::PgStore::Open(config.store.location, options);
    if (pg.ok())
      store = std::unique_ptr<store::Store>(std::move(*pg));
    else
      store = pg.status();
  } else {
    store = OpenSqlite(config);
  }
  if (!store.ok()) return Fail("cannot open store " + store_name + ": " + store.status().message());
  if (Status st = (*store)->Migrate(); !st.ok()) {
    return Fail("cannot migrate store " + store_name + ": " + st.message());
  }
  return Serve(config, **store);
}

}  // namespace redrive::app
