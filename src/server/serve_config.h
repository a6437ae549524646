// `redrive serve`'s configuration: the flags (and their env twins) as CLI11
// hands them over, and the pure functions that turn them into a checked
// ServeConfig. No I/O here, so every rule of the command line is unit-tested
// (serve_config_test.cc); src/app only wires CLI11 to these.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/api.h"
#include "core/limits.h"
#include "core/operation.h"
#include "core/status.h"

namespace redrive::server {

struct ListenAddress {
  std::string host;   // as given, without IPv6 brackets: "127.0.0.1", "::1", "localhost"
  uint16_t port = 0;  // 0: pick a free port
};

// "HOST:PORT" or "[V6]:PORT". VALIDATION error naming "listen" otherwise.
Result<ListenAddress> ParseListen(std::string_view text);

// "HOST:PORT" with brackets around IPv6 hosts: the inverse of ParseListen.
std::string FormatHostPort(std::string_view host, uint16_t port);

// True for hosts that only loopback peers can reach: 127.0.0.0/8, ::1,
// "localhost". Anything else (0.0.0.0, ::, a public address, another name)
// may be reachable from the network.
bool IsLoopbackHost(std::string_view host);

struct StoreUrl {
  enum class Kind { kSqlite, kPostgres };
  Kind kind = Kind::kSqlite;
  std::string location;  // sqlite: the file path; postgres: the whole URL
};

// "sqlite:PATH", "postgres://…" or "postgresql://…".
Result<StoreUrl> ParseStoreUrl(std::string_view text);

// The store as logs and error messages may show it: a PostgreSQL URL with
// its password (user:PASSWORD@ and a password= parameter) replaced by ***.
std::string RedactedStoreUrl(const StoreUrl& store);

// "ROLE:KEY" with ROLE one of admin, worker, viewer and a non-empty KEY (which
// may hold ':'), or "ROLE@NAME:KEY": the key named NAME (1..64 of a-z A-Z 0-9
// . _ -) in the audit log.
Result<api::ApiKey> ParseApiKey(std::string_view text);

// An --allowed-host value: comma-separated host names (no scheme, port or
// path), lower-cased; empty items skipped. VALIDATION error naming the flag.
Result<std::vector<std::string>> ParseAllowedHosts(std::string_view text);

// Comma-separated "ROLE:KEY" items (REDRIVE_API_KEYS); empty items skipped.
Result<std::vector<api::ApiKey>> ParseApiKeyList(std::string_view text);

// A duration in the one grammar (core/duration.h: "90", "90s", "5m", "2h",
// "1d", "60000ms"), positive, in whole seconds, at most a year.
Result<std::chrono::seconds> ParseDurationSeconds(std::string_view text);

// spdlog's level names: trace, debug, info, warn, error, critical, off.
bool IsValidLogLevel(std::string_view level);

// The flags exactly as given (after CLI11 applied env twins and defaults).
struct ServeFlags {
  std::string listen = "127.0.0.1:7070";
  std::string store = "sqlite:./redrive-data/redrive.db";
  std::vector<std::string> api_keys;  // each "ROLE:KEY" or a comma-separated list
  bool insecure_no_auth = false;
  uint64_t max_body_bytes = ServerLimits{}.max_body_bytes;
  uint64_t max_payload_bytes = ServerLimits{}.max_payload_bytes;
  uint64_t max_tags = ServerLimits{}.max_tags;
  uint64_t max_tag_key_bytes = ServerLimits{}.max_tag_key_bytes;
  uint64_t max_tag_value_bytes = ServerLimits{}.max_tag_value_bytes;
  uint64_t max_tags_bytes = ServerLimits{}.max_tags_bytes;
  uint64_t max_worker_metadata_bytes = ServerLimits{}.max_worker_metadata_bytes;
  uint64_t max_queues = ServerLimits{}.max_queues;
  uint64_t max_webhooks = ServerLimits{}.max_webhooks;
  uint64_t max_schedules = 1000;
  int schedule_history_keep = 1000;
  std::string schedule_history_retention = "90d";
  uint64_t max_connections = 1024;
  uint64_t max_buffered_body_bytes = 128 << 20;
  std::vector<std::string> allowed_hosts;  // each a name or a comma-separated list
  int auth_failure_limit = 10;             // 0: no limit
  std::string auth_failure_window = "60s";
  std::string retention_interval = "60s";
  std::string prune_workers_after = "7d";  // "0": never
  std::string audit_retention = "90d";
  std::string operation_retention = "7d";
  std::string access_token_ttl = "15m";
  std::string refresh_token_ttl = "24h";
  bool single_use_refresh_tokens = false;
  int io_threads = 1;
  std::string log_level = "info";
  std::string log_format = "text";
  int webhook_concurrency = 4;
  int db_pool_size = 0;  // 0: DefaultDbPoolSize() of this machine's cores
  std::string node_id;
  std::string max_clock_skew = "2s";  // "0": never reported
  std::string webhook_timeout = "10s";
  int64_t webhook_retry_base_ms = 5000;
  bool skip_integrity_check = false;
  std::string integrity_check_budget = "30s";
  std::string sqlite_sync = "pipelined";
  int operation_batch = 100;
  int operation_yield_share = 25;
  bool no_coalesce_writes = false;
  bool webhook_allow_private_targets = false;
  uint64_t max_event_streams = 256;
  uint64_t event_buffer = 1024;
  std::string event_ping_interval = "15s";
};

// The checked configuration `redrive serve` runs with.
struct ServeConfig {
  ListenAddress listen;
  StoreUrl store;
  std::vector<api::ApiKey> api_keys;
  bool insecure_no_auth = false;
  ServerLimits limits;
  // The front door (http_server.h): connections served at once, and request
  // body bytes held at once over all of them.
  size_t max_connections = 1024;
  size_t max_buffered_body_bytes = 128 << 20;
  // Host names besides loopback names, IP addresses and the listen host that
  // a server without keys answers; lower case (api/request_guard.h).
  std::vector<std::string> allowed_hosts;
  // Failed authentications per client address within the window before it
  // gets 429 until the window ends; 0: no limit.
  int auth_failure_limit = 10;
  std::chrono::seconds auth_failure_window{60};
  std::chrono::seconds retention_interval{60};
  // Workers silent this long are deleted from the registry; zero: never.
  std::chrono::seconds prune_workers_after{7 * 24 * 3600};
  // How long the operator audit log keeps an entry.
  std::chrono::seconds audit_retention{90 * 24 * 3600};
  // How long a finished bulk operation (core/operation.h) is kept.
  std::chrono::seconds operation_retention{kDefaultOperationRetention};
  // How long the token exchange's access tokens (1 min..24 h) and refresh
  // tokens (10 min..90 days) last (api/token_auth.h).
  std::chrono::seconds access_token_ttl{15 * 60};
  std::chrono::seconds refresh_token_ttl{24 * 3600};
  // Each refresh answers a new refresh token and ends the one sent
  // (single use) instead of answering the one sent (reusable until it ends,
  // as Spooled's SDKs need).
  bool single_use_refresh_tokens = false;
  // The most schedules the store holds; each keeps its newest
  // schedule_history_keep runs, none older than schedule_history_retention.
  size_t max_schedules = 1000;
  int schedule_history_keep = 1000;
  std::chrono::seconds schedule_history_retention{90 * 24 * 3600};
  int io_threads = 1;
  std::string log_level = "info";
  // "text" (one line for a person) or "json" (one object per line); see app/logging.h.
  bool log_json = false;
  // A shared database's clock this far from the node's is reported; zero: never.
  std::chrono::seconds max_clock_skew{2};
  // Outgoing webhooks: deliveries sent at once, the timeout of one POST, and
  // the first retry delay (doubling up to an hour).
  int webhook_concurrency = 4;
  // PostgreSQL: write connections this node opens, and whether they are the
  // database's, divided among the live nodes (the default pool), or this
  // node's alone (--db-pool-size given): EngineOptions::share_write_connections.
  int db_pool_size = 4;
  bool share_db_pool = false;
  // This node's name among those sharing the store; empty: HOST-PID-RANDOM.
  std::string node_id;
  std::chrono::seconds webhook_timeout{10};
  std::chrono::milliseconds webhook_retry_base{5000};
  // SQLite: the start-up PRAGMA quick_check, and how long it may run before
  // it is cut short (the server then starts, saying so in the log).
  bool skip_integrity_check = false;
  std::chrono::seconds integrity_check_budget{30};
  // SQLite: true (--sqlite-sync pipelined), the WAL is fsync'd by a thread
  // of its own while the next batch runs; false (full), by each COMMIT.
  bool sqlite_pipelined_sync = true;
  // Jobs per transaction of a bulk operation (EngineOptions::operation_batch).
  int operation_batch = 100;
  // EngineOptions::operation_yield_share.
  int operation_yield_share = 25;
  // EngineOptions::coalesce_writes (--no-coalesce-writes turns it off).
  bool coalesce_writes = true;
  // Also deliver to (and accept) loopback, private, link-local, ... webhook
  // targets; off, only global addresses are (engine/webhooks/target_address.h).
  bool webhook_allow_private_targets = false;
  // Live event streams (GET /api/v1/events, /api/v1/ws): the most open at
  // once, the events each may hold before a slow client is dropped, and
  // how often a quiet one gets a keep-alive.
  size_t max_event_streams = 256;
  size_t event_buffer = 1024;
  std::chrono::milliseconds event_ping_interval{15000};
};

// The shortest API key accepted on a non-loopback address: a key guessed
// over the network must not be a few characters (on loopback any non-empty
// key is accepted, for tests and local use).
inline constexpr size_t kMinApiKeyLength = 16;

// Parses and checks every flag. Errors are one line meant for stderr, e.g.
// "--listen: expected HOST:PORT, got 'foo'". Refuses to serve a non-loopback
// address without API keys unless insecure_no_auth is set (the contract's
// Auth rule): an open job queue on the network must be an explicit choice,
// and refuses keys shorter than kMinApiKeyLength there.
// PostgreSQL write connections of a node when --db-pool-size is not given:
// `cores` (this machine's; 0 is unknown), at least 2 and at most 32, taken
// as the database's and divided among the nodes sharing it (write_share.h). More
// transactions at once than the database has cores to run them only wait
// for each other: claims of one queue then skip each other's locked rows
// (on two cores a batch claim lost a third of its speed at 16 connections),
// and requests that wait for a connection run together as one op, so fewer
// connections make fewer, larger transactions (on two cores single-job
// mode ran 15-25 % faster with 2 than with 4: docs/benchmarks.md).
int DefaultDbPoolSize(unsigned cores);

Result<ServeConfig> MakeServeConfig(const ServeFlags& flags);

}  // namespace redrive::server
