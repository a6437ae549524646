#include "app/serve_flags.h"

#include <CLI/CLI.hpp>

namespace redrive::app {

void AddServeFlags(CLI::App& serve, server::ServeFlags& flags) {
  serve
      .add_option("--listen", flags.listen,
                  "Address to listen on, HOST:PORT ([V6]:PORT); port 0 picks a free port")
      ->envname("REDRIVE_LISTEN")
      ->capture_default_str();
  serve
      .add_option("--store", flags.store,
                  "Where jobs live: sqlite:PATH (one server per file; its directory is "
                  "created) or postgres://USER@HOST:PORT/DB (also postgresql://; several nodes "
                  "may share it; the password from PGPASSWORD or ~/.pgpass rather than the URL)")
      ->envname("REDRIVE_STORE")
      ->capture_default_str();
  serve
      .add_option("--api-key", flags.api_keys,
                  "ROLE:KEY with ROLE admin, worker or viewer (ROLE@NAME:KEY names the key in "
                  "the audit log); repeatable. Keys need 16+ "
                  "characters off loopback. Prefer the env twin (comma-separated): a flag is "
                  "visible to every local user in the process list")
      ->envname("REDRIVE_API_KEYS")
      ->allow_extra_args(false);
  serve
      .add_flag("--insecure-no-auth", flags.insecure_no_auth,
                "Serve a non-loopback address without API keys (everyone is admin)")
      ->envname("REDRIVE_INSECURE_NO_AUTH");
  serve.add_option("--max-body-bytes", flags.max_body_bytes, "Largest HTTP request body")
      ->envname("REDRIVE_MAX_BODY_BYTES")
      ->capture_default_str();
  serve
      .add_option("--max-connections", flags.max_connections,
                  "HTTP connections served at once; more get 503 and are closed")
      ->envname("REDRIVE_MAX_CONNECTIONS")
      ->capture_default_str();
  serve
      .add_option("--max-buffered-body-bytes", flags.max_buffered_body_bytes,
                  "Request body bytes held at once over all connections (at least "
                  "--max-body-bytes); a request that would pass it gets 503")
      ->envname("REDRIVE_MAX_BUFFERED_BODY_BYTES")
      ->capture_default_str();
  serve
      .add_option("--allowed-host", flags.allowed_hosts,
                  "Host name (no port) a browser may use to reach this server, besides "
                  "localhost, IP addresses and the --listen host; repeatable. Without keys other "
                  "Host headers get 403 (DNS rebinding); with keys it names the public origin "
                  "behind a proxy that rewrites Host")
      ->envname("REDRIVE_ALLOWED_HOSTS")
      ->allow_extra_args(false);
  serve
      .add_option("--auth-failure-limit", flags.auth_failure_limit,
                  "Failed authentications per client address within --auth-failure-window "
                  "before its requests get 429; 0 no limit")
      ->envname("REDRIVE_AUTH_FAILURE_LIMIT")
      ->capture_default_str();
  serve
      .add_option("--auth-failure-window", flags.auth_failure_window,
                  "The window of --auth-failure-limit (60s, 5m, 1h)")
      ->envname("REDRIVE_AUTH_FAILURE_WINDOW")
      ->capture_default_str();
  serve
      .add_option("--max-payload-bytes", flags.max_payload_bytes, "Largest serialized job payload")
      ->envname("REDRIVE_MAX_PAYLOAD_BYTES")
      ->capture_default_str();
  serve.add_option("--max-tags", flags.max_tags, "Most tags on one job")
      ->envname("REDRIVE_MAX_TAGS")
      ->capture_default_str();
  serve.add_option("--max-tag-key-bytes", flags.max_tag_key_bytes, "Longest tag key (UTF-8 bytes)")
      ->envname("REDRIVE_MAX_TAG_KEY_BYTES")
      ->capture_default_str();
  serve
      .add_option("--max-tag-value-bytes", flags.max_tag_value_bytes,
                  "Longest tag value (UTF-8 bytes)")
      ->envname("REDRIVE_MAX_TAG_VALUE_BYTES")
      ->capture_default_str();
  serve
      .add_option("--max-tags-bytes", flags.max_tags_bytes,
                  "Largest serialized tags object of one job")
      ->envname("REDRIVE_MAX_TAGS_BYTES")
      ->capture_default_str();
  serve
      .add_option("--max-worker-metadata-bytes", flags.max_worker_metadata_bytes,
                  "Largest serialized worker metadata (register and heartbeat)")
      ->envname("REDRIVE_MAX_WORKER_METADATA_BYTES")
      ->capture_default_str();
  serve
      .add_option("--max-queues", flags.max_queues,
                  "Most queues the store holds; a job or configuration for a new queue beyond "
                  "it is refused (409)")
      ->envname("REDRIVE_MAX_QUEUES")
      ->capture_default_str();
  serve
      .add_option("--max-webhooks", flags.max_webhooks,
                  "Most webhooks the store holds; creating one more is refused (409)")
      ->envname("REDRIVE_MAX_WEBHOOKS")
      ->capture_default_str();
  serve
      .add_option("--max-schedules", flags.max_schedules,
                  "Most schedules (cron jobs) the store holds; creating one more is refused (409)")
      ->envname("REDRIVE_MAX_SCHEDULES")
      ->capture_default_str();
  serve
      .add_option("--schedule-history-keep", flags.schedule_history_keep,
                  "Runs each schedule keeps in its history (the newest)")
      ->envname("REDRIVE_SCHEDULE_HISTORY_KEEP")
      ->capture_default_str();
  serve
      .add_option("--schedule-history-retention", flags.schedule_history_retention,
                  "How long a schedule's runs are kept at most (90d, 7d, 12h)")
      ->envname("REDRIVE_SCHEDULE_HISTORY_RETENTION")
      ->capture_default_str();
  serve
      .add_option("--retention-interval", flags.retention_interval,
                  "How often finished jobs past their retention are deleted (60, 60s, 5m, 1h)")
      ->envname("REDRIVE_RETENTION_INTERVAL")
      ->capture_default_str();
  serve
      .add_option("--prune-workers-after", flags.prune_workers_after,
                  "Delete workers whose last heartbeat is older than this (7d, 12h); 0 never. "
                  "Workers holding a lease are kept")
      ->envname("REDRIVE_PRUNE_WORKERS_AFTER")
      ->capture_default_str();
  serve
      .add_option("--max-event-streams", flags.max_event_streams,
                  "Most live event streams (SSE and WebSocket) open at once; one more is "
                  "refused (503)")
      ->envname("REDRIVE_MAX_EVENT_STREAMS")
      ->capture_default_str();
  serve
      .add_option("--event-buffer", flags.event_buffer,
                  "Events a live stream may hold for a client before the client, reading too "
                  "slowly, is dropped")
      ->envname("REDRIVE_EVENT_BUFFER")
      ->capture_default_str();
  serve
      .add_option("--event-ping-interval", flags.event_ping_interval,
                  "How often a live event stream gets a keep-alive (15s, 500ms)")
      ->envname("REDRIVE_EVENT_PING_INTERVAL")
      ->capture_default_str();
  serve
      .add_option("--audit-retention", flags.audit_retention,
                  "How long the operator audit log keeps an entry (90d, 30d, 12h; at most a year)")
      ->envname("REDRIVE_AUDIT_RETENTION")
      ->capture_default_str();
  serve
      .add_option("--operation-retention", flags.operation_retention,
                  "How long a finished bulk operation is kept (7d, 30d, 12h; at most a year)")
      ->envname("REDRIVE_OPERATION_RETENTION")
      ->capture_default_str();
  serve
      .add_option("--access-token-ttl", flags.access_token_ttl,
                  "How long an access token from POST /api/v1/auth/login lasts (1m..24h); a "
                  "revoked key's tokens stop at once regardless")
      ->envname("REDRIVE_ACCESS_TOKEN_TTL")
      ->capture_default_str();
  serve
      .add_option("--refresh-token-ttl", flags.refresh_token_ttl,
                  "How long a refresh token lasts from its login (10m..90d); logout and a "
                  "revoked key end it sooner")
      ->envname("REDRIVE_REFRESH_TOKEN_TTL")
      ->capture_default_str();
  serve
      .add_flag("--single-use-refresh-tokens", flags.single_use_refresh_tokens,
                "Each refresh answers a new refresh token and ends the one sent; by default a "
                "refresh token is reused until it expires, as Spooled's SDKs need")
      ->envname("REDRIVE_SINGLE_USE_REFRESH_TOKENS");
  serve
      .add_option("--max-clock-skew", flags.max_clock_skew,
                  "PostgreSQL: report (log, /health/ready, redrive_clock_skew_seconds) a clock "
                  "this far from the database's (2s, 10s; whole seconds); 0 never")
      ->envname("REDRIVE_MAX_CLOCK_SKEW")
      ->capture_default_str();
  serve.add_option("--io-threads", flags.io_threads, "Threads serving HTTP connections")
      ->envname("REDRIVE_IO_THREADS")
      ->capture_default_str();
  serve
      .add_option("--webhook-concurrency", flags.webhook_concurrency,
                  "Outgoing webhook deliveries sent at once")
      ->envname("REDRIVE_WEBHOOK_CONCURRENCY")
      ->capture_default_str();
  serve
      .add_option("--db-pool-size", flags.db_pool_size,
                  "PostgreSQL: write transactions at once, one connection each (the node also "
                  "keeps 4 for reads and 1 for wake-ups); default this machine's cores, 2 to "
                  "32, divided among the nodes sharing the database; ignored on SQLite")
      ->envname("REDRIVE_DB_POOL_SIZE");
  serve
      .add_option("--node-id", flags.node_id,
                  "This node's name among the nodes sharing the store (logs, duty leadership); "
                  "unique per node. Default: HOST-PID-RANDOM")
      ->envname("REDRIVE_NODE_ID");
  serve
      .add_option("--webhook-timeout", flags.webhook_timeout,
                  "Timeout of one webhook POST, connect to answer (10s, 30s, 1m)")
      ->envname("REDRIVE_WEBHOOK_TIMEOUT")
      ->capture_default_str();
  serve
      .add_option("--webhook-retry-base-ms", flags.webhook_retry_base_ms,
                  "First retry delay of a failed webhook delivery; doubles per attempt up to 1h")
      ->envname("REDRIVE_WEBHOOK_RETRY_BASE_MS")
      ->capture_default_str();
  serve
      .add_flag("--skip-integrity-check", flags.skip_integrity_check,
                "SQLite: start without the start-up PRAGMA quick_check of the database file")
      ->envname("REDRIVE_SKIP_INTEGRITY_CHECK");
  serve
      .add_option("--integrity-check-budget", flags.integrity_check_budget,
                  "SQLite: how long the start-up integrity check may run; past it the check "
                  "is cut short (logged) and the server starts (30s, 5m)")
      ->envname("REDRIVE_INTEGRITY_CHECK_BUDGET")
      ->capture_default_str();
  serve
      .add_option("--sqlite-sync", flags.sqlite_sync,
                  "SQLite: how commits reach the disk before anyone is answered: pipelined "
                  "(a thread fsyncs the WAL while the next batch runs) or full (each COMMIT "
                  "fsyncs); both answer only after the fsync")
      ->envname("REDRIVE_SQLITE_SYNC")
      ->capture_default_str();
  serve
      .add_option("--operation-batch", flags.operation_batch,
                  "Jobs a bulk operation changes per transaction (1-500): smaller keeps other "
                  "queues' latency lower while it runs, larger finishes it sooner")
      ->envname("REDRIVE_OPERATION_BATCH")
      ->capture_default_str();
  serve
      .add_option("--operation-yield-share", flags.operation_yield_share,
                  "Percent (1-100) of the writer's time a bulk operation without a rate may take "
                  "while this node serves requests, in batches of at most 16 jobs; it runs at "
                  "full speed when there are none. 100: it never yields")
      ->envname("REDRIVE_OPERATION_YIELD_SHARE")
      ->capture_default_str();
  serve
      .add_flag("--no-coalesce-writes", flags.no_coalesce_writes,
                "Run every claim, complete, fail and heartbeat as an op of its own, instead of "
                "running those that wait for the writer together as one (for comparison)")
      ->envname("REDRIVE_NO_COALESCE_WRITES");
  serve
      .add_flag("--webhook-allow-private-targets", flags.webhook_allow_private_targets,
                "Let webhooks target loopback, private (RFC 1918, CGNAT, ULA), link-local and "
                "other non-global addresses; by default only global addresses are")
      ->envname("REDRIVE_WEBHOOK_ALLOW_PRIVATE_TARGETS");
  serve
      .add_option("--log-level", flags.log_level,
                  "trace, debug (logs every request), info, warn, error, critical or off")
      ->envname("REDRIVE_LOG_LEVEL")
      ->capture_default_str();
  serve
      .add_option("--log-format", flags.log_format,
                  "text (for a person) or json (one object per line: time, level, node, "
                  "request_id, message)")
      ->envname("REDRIVE_LOG_FORMAT")
      ->capture_default_str();
}

}  // namespace redrive::app
